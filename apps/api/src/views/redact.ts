/**
 * Redaction for callers who are not admin (docs/auth.md#what-each-scope-sees: upstream addresses, URLs
 * with credentials, model file paths and full download URLs are admin-only). Pure string work on
 * messages that svc itself produced (`lastError`, transition errors, config errors, upstream logs).
 */
import type { Principal } from '@svc/auth'

/** Admin: a token of scope `admin`, the proxy's forwarded identity, or anyone when auth is off. */
export function isAdmin(principal: Principal | undefined): boolean {
  return principal === undefined || principal.scope === 'admin'
}

// Linear in the text: the scheme is at most 32 characters, so a long run of `a-a-a-…` (a word start
// at every letter) costs 32 steps per start, not the rest of the line.
const URL_PATTERN = /\b([a-z][a-z0-9+.-]{0,31}):\/\/([^\s"'<>(){}]+)/gi
// An absolute path of at least two segments, not part of a word or a URL (those went first).
const PATH_PATTERN = /(^|[\s"'(=:])\/(?:[^\s"'/()<>]+\/)+([^\s"'/()<>]+)/g

/**
 * `scheme://user:pw@host:port/path?query` → `scheme://host/…` (no credentials, port, path or
 * query), and `/var/lib/svc/models/x/model.gguf` → `…/model.gguf`. Everything else is kept.
 */
export function redactText(text: string): string {
  return text
    .replace(URL_PATTERN, (_m, scheme: string, matched: string) => {
      // Punctuation that ends a sentence is not part of the URL (`http://h:8080: refused` keeps its
      // colon, and the port before it is still dropped).
      const rest = withoutTrail(matched)
      const trail = matched.slice(rest.length)
      const authority = rest.split(/[/?#]/, 1)[0] ?? ''
      const host = hostOf(authority)
      return `${scheme}://${host}${rest.length > authority.length ? '/…' : ''}${trail}`
    })
    .replace(PATH_PATTERN, (_m, lead: string, file: string) => `${lead}…/${file}`)
}

/** `redactText` for a nullable message. */
export function redactMaybe(text: string | null | undefined): string | null {
  return text === null || text === undefined ? null : redactText(text)
}

function hostOf(authority: string): string {
  const afterUser = authority.slice(authority.lastIndexOf('@') + 1)
  if (afterUser.startsWith('[')) return afterUser.slice(0, afterUser.indexOf(']') + 1) || afterUser
  return afterUser.replace(/:\d*$/, '')
}

// A flag or variable whose value is a secret: --api-key, --hf-token, --password, AUTH_SECRET=…
const SECRET_NAME = /(key|token|secret|pass(word|wd)?|auth|credential|cookie|bearer)/i
// A value that is a secret whatever flag it follows (OpenAI, Hugging Face, GitHub, Slack, svc tokens).
const SECRET_VALUE = /^(sk-|hf_|ghp_|gho_|github_pat_|xox[abp]-|svc_[A-Za-z0-9]{12}\.)/

/** What a non-admin sees instead of a secret argument. */
export const REDACTED = '[redacted]'

/**
 * A slot's extra engine arguments for callers who are not admin: the value after a flag that names
 * a secret (`--api-key X`, `--hf-token=X`, `HF_TOKEN=X`), any value that looks like a key on its own,
 * and credentials, ports and paths of URLs and file paths (`redactText`) are reduced; everything else
 * (`--ctx-size 8192`, `-ngl 99`) is kept, since it says how the model runs.
 */
export function redactArgs(args: readonly string[]): string[] {
  const out: string[] = []
  let secretNext = false
  for (const arg of args) {
    const isFlag = /^-{1,2}[A-Za-z]/.test(arg)
    if (secretNext && !isFlag) {
      out.push(REDACTED)
      secretNext = false
      continue
    }
    secretNext = false
    const eq = arg.indexOf('=')
    const name = eq > 0 ? arg.slice(0, eq) : arg
    if (eq > 0 && SECRET_NAME.test(name)) out.push(`${name}=${REDACTED}`)
    else if (SECRET_VALUE.test(eq > 0 ? arg.slice(eq + 1) : arg))
      out.push(eq > 0 ? `${name}=${REDACTED}` : REDACTED)
    else {
      if (isFlag && eq < 0 && SECRET_NAME.test(arg)) secretNext = true
      out.push(redactText(arg))
    }
  }
  return out
}

/** `text` without its trailing sentence punctuation; a loop, since `/[.,;:!?]+$/` is quadratic on `....x`. */
function withoutTrail(text: string): string {
  let end = text.length
  while (end > 0 && '.,;:!?'.includes(text[end - 1]!)) end--
  return text.slice(0, end)
}
