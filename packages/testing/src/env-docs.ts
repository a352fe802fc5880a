/**
 * A program's table of environment variables (`EnvVariable[]`, declared beside its env reader) against
 * the table its docs page shows: the same names, defaults and meanings, in the same order. Each
 * program's `env-docs.test.ts` runs it on its page.
 */
import type { EnvVariable } from '@svc/core/node'

/** The docs' row for `v`: `` | `NAME` | default | meaning | ``, `—` where there is no default. */
export function envDocRow(v: EnvVariable): string {
  const fallback = v.defaultText ?? (v.fallback === undefined ? '—' : `\`${v.fallback}\``)
  return `| \`${v.name}\` | ${fallback} | ${v.meaning} |`
}

/** The rows of the first table after the line `heading` (e.g. `## Environment`) in `markdown`. */
export function documentedEnvRows(markdown: string, heading: string): string[] {
  const lines = markdown.split('\n')
  const at = lines.indexOf(heading)
  if (at < 0) throw new Error(`no line "${heading}" in the page`)
  const start = lines.findIndex((l, i) => i > at && l.startsWith('|---'))
  if (start < 0) throw new Error(`no table under "${heading}"`)
  const rows: string[] = []
  for (const line of lines.slice(start + 1)) {
    if (!line.startsWith('|')) break
    rows.push(line)
  }
  return rows
}

export interface EnvDocCheck {
  /** The rows as the table declares them. */
  expected: string[]
  /** The rows the page shows. */
  documented: string[]
  /** Names the page shows that the table does not declare (or rows without a name). */
  undeclared: string[]
  /** For a failure's message: the table as declared, to paste into the page. */
  hint: string
}

/** `table` against the first table under `heading` in `markdown`. */
export function checkEnvDoc(table: readonly EnvVariable[], markdown: string, heading: string): EnvDocCheck {
  const expected = table.map(envDocRow)
  const documented = documentedEnvRows(markdown, heading)
  const declared = new Set(table.map((v) => v.name))
  const undeclared = documented
    .map((row) => /^\| `([A-Za-z0-9_]+)`/.exec(row)?.[1] ?? row)
    .filter((name) => !declared.has(name))
  return { expected, documented, undeclared, hint: `the table as declared:\n${expected.join('\n')}\n` }
}
