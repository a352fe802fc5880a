/**
 * Environment files (`/etc/svc/api.env`, `/etc/svc/chat.env`), read by systemd's `EnvironmentFile=`
 * and by a shell's `set -a; . file` alike. The installer owns the keys it writes; every other line (a
 * setting or comment a user added, such as `OPENAI_API_KEY=…`) is kept as it is, in its place.
 */

/** Values of the keys the installer manages; `undefined` removes the key. */
export type ManagedEnv = Record<string, string | undefined>

const KEY = /^[A-Za-z_][A-Za-z0-9_]*$/
/** Values that mean the same to systemd and to sh without quotes. */
const PLAIN = /^[A-Za-z0-9_.:/@+,=%-]*$/

/** `KEY=value`, double-quoted (with `\` escapes) when the value has anything but plain characters. */
export function envLine(key: string, value: string): string {
  if (!KEY.test(key)) throw new Error(`not an environment variable name: ${key}`)
  if (/[\n\r\0]/.test(value)) throw new Error(`${key}: a value cannot contain line breaks`)
  if (PLAIN.test(value)) return `${key}=${value}`
  return `${key}="${value.replace(/[\\"$`]/g, (c) => `\\${c}`)}"`
}

/** The keys and values of an env file (the simple `KEY=value` / `KEY="value"` forms the installer writes). */
export function parseEnvFile(text: string): Record<string, string> {
  const out: Record<string, string> = {}
  for (const raw of text.split('\n')) {
    const line = raw.trim()
    if (!line || line.startsWith('#')) continue
    const eq = line.indexOf('=')
    if (eq <= 0) continue
    const key = line
      .slice(0, eq)
      .replace(/^export\s+/, '')
      .trim()
    let value = line.slice(eq + 1).trim()
    if (value.length >= 2 && value.startsWith('"') && value.endsWith('"'))
      value = value.slice(1, -1).replace(/\\(.)/g, '$1')
    else if (value.length >= 2 && value.startsWith("'") && value.endsWith("'")) value = value.slice(1, -1)
    if (KEY.test(key)) out[key] = value
  }
  return out
}

/**
 * The new text of an env file: the managed keys set (or removed), in place where they were and
 * appended otherwise; the user's own lines untouched. `header` starts a file that did not exist.
 */
export function mergeEnvFile(existing: string | undefined, managed: ManagedEnv, header: string): string {
  const lines =
    existing === undefined ? header.trimEnd().split('\n') : existing.replace(/\n$/, '').split('\n')
  const seen = new Set<string>()
  const out: string[] = []
  for (const line of lines) {
    const key = /^\s*(?:export\s+)?([A-Za-z_][A-Za-z0-9_]*)\s*=/.exec(line)?.[1]
    if (key === undefined || !(key in managed)) {
      out.push(line)
      continue
    }
    const value = managed[key]
    if (value !== undefined && !seen.has(key)) out.push(envLine(key, value))
    seen.add(key)
  }
  for (const [key, value] of Object.entries(managed)) {
    if (!seen.has(key) && value !== undefined) out.push(envLine(key, value))
  }
  return `${out.join('\n')}\n`
}
