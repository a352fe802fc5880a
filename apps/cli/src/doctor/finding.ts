/**
 * One line of `svc doctor`'s report: what was checked, how it stands, and for a problem what to do.
 * `fail` blocks svc from working (the doctor exits 1); `warn` is worth knowing but svc works without
 * it (no container engine, a disabled slot this machine cannot run).
 */
export type Mark = 'ok' | 'warn' | 'fail'

export interface Finding {
  mark: Mark
  /** What was checked and what was found, one line: "llama-server: /usr/bin/llama-server (b4567)". */
  text: string
  /** For a problem: what to do, as a person would type or click it. */
  fix?: string
}

const SYMBOL: Record<Mark, string> = { ok: '✓', warn: '!', fail: '✗' }

/** `✓ text`, `! text` or `✗ text`, and an indented `fix:` line under a problem. */
export function renderFinding(f: Finding): string {
  return `${SYMBOL[f.mark]} ${f.text}\n${f.fix && f.mark !== 'ok' ? `    fix: ${f.fix}\n` : ''}`
}

/** The closing line: how many problems block svc, and how many are only worth knowing. */
export function summary(findings: readonly Finding[]): string {
  const fails = findings.filter((f) => f.mark === 'fail').length
  const warns = findings.filter((f) => f.mark === 'warn').length
  const notes = warns ? ` (${warns} note${warns === 1 ? '' : 's'} marked ! above)` : ''
  if (fails === 0) return `Nothing blocks svc here${notes}.\n`
  return `${fails} problem${fails === 1 ? '' : 's'} (✗) block${fails === 1 ? 's' : ''} svc: fix ${fails === 1 ? 'it' : 'them'} and run svc doctor again${notes}.\n`
}
