/**
 * docs/configuration.md's environment table is the API's table of variables (src/env-variables.ts):
 * the same names, defaults and meanings, in the same order. On a difference the message holds the
 * table as the code declares it, to paste into the docs.
 */
import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { ENV_VARIABLES, type EnvVariable } from '../src/env-variables'

const DOC = new URL('../../../docs/configuration.md', import.meta.url)

function row(v: EnvVariable): string {
  const fallback = v.defaultText ?? (v.fallback === undefined ? '—' : `\`${v.fallback}\``)
  return `| \`${v.name}\` | ${fallback} | ${v.meaning} |`
}

/** The rows of the first table under `## Environment`. */
function documentedRows(): string[] {
  const text = readFileSync(DOC, 'utf8')
  const section = text.slice(text.indexOf('## Environment'))
  const lines = section.split('\n')
  const start = lines.findIndex((l) => l.startsWith('|---'))
  const rows: string[] = []
  for (const line of lines.slice(start + 1)) {
    if (!line.startsWith('|')) break
    rows.push(line)
  }
  return rows
}

describe('docs/configuration.md', () => {
  it('documents every variable the API reads, with the default and meaning the code declares', () => {
    const expected = ENV_VARIABLES.map(row)
    expect(documentedRows(), `the table as declared:\n${expected.join('\n')}\n`).toEqual(expected)
  })

  it('documents no variable the API does not read', () => {
    const declared = new Set<string>(ENV_VARIABLES.map((v) => v.name))
    const documented = documentedRows().map((r) => /^\| `([A-Z0-9_]+)`/.exec(r)?.[1])
    expect(documented.filter((name) => !name || !declared.has(name))).toEqual([])
  })
})
