import type { EnvVariable } from '@svc/core/node'
import { describe, expect, it } from 'vitest'
import { checkEnvDoc, documentedEnvRows, envDocRow } from '../src/env-docs'

const TABLE: EnvVariable[] = [
  { name: 'SVC_A', fallback: '1', meaning: 'a' },
  { name: 'SVC_B', defaultText: 'unset (off)', meaning: 'b' },
  { name: 'SVC_C', meaning: 'c' },
]

const page = (rows: string[]) =>
  [
    '# Page',
    '',
    '## Other',
    '',
    '| x |',
    '|---|',
    '| `SVC_X` |',
    '',
    '## Environment',
    '',
    'Words.',
    '',
    '| variable | default | meaning |',
    '|---|---|---|',
    ...rows,
    '',
    'After.',
  ].join('\n')

describe("a program's environment table against its docs page", () => {
  it('writes a row with the plain default in code, the default in words as it is, or a dash', () => {
    expect(TABLE.map(envDocRow)).toEqual([
      '| `SVC_A` | `1` | a |',
      '| `SVC_B` | unset (off) | b |',
      '| `SVC_C` | — | c |',
    ])
  })

  it('reads only the first table under the heading', () => {
    expect(documentedEnvRows(page(['| `SVC_A` | `1` | a |']), '## Environment')).toEqual([
      '| `SVC_A` | `1` | a |',
    ])
    expect(() => documentedEnvRows(page([]), '## Settings')).toThrow('no line "## Settings"')
  })

  it('agrees when the page shows the table, and finds a missing row, a changed default and a row too many', () => {
    const rows = TABLE.map(envDocRow)
    const same = checkEnvDoc(TABLE, page(rows), '## Environment')
    expect(same.documented).toEqual(same.expected)
    expect(same.undeclared).toEqual([])

    const missing = checkEnvDoc(TABLE, page(rows.slice(0, 2)), '## Environment')
    expect(missing.documented).not.toEqual(missing.expected)
    expect(missing.hint).toContain('| `SVC_C` | — | c |')

    const changed = checkEnvDoc(
      TABLE,
      page(rows.map((r) => r.replace('unset (off)', '`0`'))),
      '## Environment',
    )
    expect(changed.documented).not.toEqual(changed.expected)

    const extra = checkEnvDoc(TABLE, page([...rows, '| `SVC_GONE` | — | old |']), '## Environment')
    expect(extra.undeclared).toEqual(['SVC_GONE'])
  })
})
