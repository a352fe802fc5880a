/**
 * What body capture never keeps: credentials. Headers that carry one (`Authorization`, `x-api-key`,
 * `api-key`, cookies, the proxy's secret …), JSON fields named like a key (`api_key`, `apiKey`,
 * `token`, `access_token`, `password`, `secret` …) at any depth, and string values that look like a
 * key whatever their field (`sk-…`, `hf_…`, `svc_<id>.…`). Runs only while capture is on.
 */
import { REDACTED } from '../views/redact'

// Compared lower-case with `-`/`_` removed: `x-api-key`, `X_Api_Key` and `xapikey` are one name.
const SECRET_HEADERS = new Set([
  'authorization',
  'proxyauthorization',
  'cookie',
  'setcookie',
  'xapikey',
  'apikey',
  'xsvcproxysecret',
  'xauthtoken',
  'xgoogapikey',
])
// A header or field whose name ends like one of these (`openai_api_key`, `hfToken`, `db-password`).
// Not `tokens` (`max_tokens`) and not `key` alone (`cache_key`, a sort key): only what names a secret.
const SECRET_NAME =
  /(apikey|accesskey|secretkey|privatekey|token|secret|password|passwd|credentials?|authorization|cookie)$/
const SECRET_VALUE =
  /^(Bearer\s+\S|sk-[A-Za-z0-9_-]{8}|hf_[A-Za-z0-9]{8}|ghp_|gho_|github_pat_|xox[abp]-|svc_[A-Za-z0-9]{12}\.)/

function squash(name: string): string {
  return name.toLowerCase().replace(/[-_\s]/g, '')
}

/** Whether a header or JSON field of this name holds a secret. */
export function isSecretName(name: string): boolean {
  const n = squash(name)
  return SECRET_HEADERS.has(n) || SECRET_NAME.test(n)
}

/** The headers with every secret one's value replaced (names kept, so a reader sees it was sent). */
export function redactHeaders(
  headers: Record<string, string | string[] | number | undefined>,
): Record<string, string> {
  const out: Record<string, string> = {}
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined) continue
    const text = Array.isArray(value) ? value.join(', ') : String(value)
    out[name] = isSecretName(name) || SECRET_VALUE.test(text) ? REDACTED : text
  }
  return out
}

/** A parsed JSON value with secret fields and secret-looking strings replaced, as a new value. */
export function redactJson(value: unknown): unknown {
  if (typeof value === 'string') return SECRET_VALUE.test(value) ? REDACTED : value
  if (Array.isArray(value)) return value.map(redactJson)
  if (value && typeof value === 'object') {
    const out: Record<string, unknown> = {}
    for (const [k, v] of Object.entries(value)) {
      out[k] = isSecretName(k) && v !== null ? REDACTED : redactJson(v)
    }
    return out
  }
  return value
}

/**
 * A body as text with its secrets redacted: JSON parsed and rewritten; a Server-Sent Events stream
 * event by event (each `data:` line that is JSON); anything else with secret-looking words replaced.
 */
export function redactBodyText(text: string): string {
  const trimmed = text.trimStart()
  if (trimmed.startsWith('{') || trimmed.startsWith('[')) {
    try {
      return JSON.stringify(redactJson(JSON.parse(text)))
    } catch {
      // not whole JSON (cut at the cap): fall through to the word-level pass
    }
  }
  if (/^(data|event|id|retry):/m.test(text)) {
    return text
      .split('\n')
      .map((line) => {
        if (!line.startsWith('data:')) return line
        const data = line.slice(5).trim()
        if (!data.startsWith('{')) return line
        try {
          return `data: ${JSON.stringify(redactJson(JSON.parse(data)))}`
        } catch {
          return redactWords(line)
        }
      })
      .join('\n')
  }
  return redactWords(text)
}

/** Secret-looking words, and the value after a `"secret_name": "` in text that is not whole JSON. */
function redactWords(text: string): string {
  return text
    .replace(/("([A-Za-z0-9_-]+)"\s*:\s*)"((?:[^"\\]|\\.)*)"/g, (m, lead: string, name: string) =>
      isSecretName(name) ? `${lead}"${REDACTED}"` : m,
    )
    .replace(/\b(Bearer\s+)\S+/g, `$1${REDACTED}`)
    .replace(/\b(sk-|hf_|ghp_|gho_|github_pat_|xox[abp]-|svc_)[A-Za-z0-9_.-]{8,}/g, REDACTED)
}
