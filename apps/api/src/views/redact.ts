/**
 * Redaction for callers who are not admin (README "What each scope sees": upstream addresses, URLs
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

/** `text` without its trailing sentence punctuation; a loop, since `/[.,;:!?]+$/` is quadratic on `....x`. */
function withoutTrail(text: string): string {
  let end = text.length
  while (end > 0 && '.,;:!?'.includes(text[end - 1]!)) end--
  return text.slice(0, end)
}
