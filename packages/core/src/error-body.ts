/**
 * The one reader of an error answer, beside the one renderer (`renderError`): every client of svc
 * (the dashboard, the chat app's browser and server sides, the CLI) reads an error body here.
 * Browser-safe (no Node APIs).
 *
 * It reads svc's own `{"error":{code,message,type,param}}`, the Anthropic shape svc answers under
 * `/v1/messages` (`{"type":"error","error":{type,message,svc_code,param}}`), and the bare
 * `{"error":"…"}` some upstreams send (and svc's Ollama API, with `code` beside it). Anything else (HTML from a proxy, plain text, nothing) keeps its
 * first characters as the message, so the person still sees what came back.
 */

/** What an error answer said. `code` and `param` are null when the body did not carry them. */
export interface ReadErrorBody {
  code: string | null
  message: string
  param: string | null
}

/** How much of a body that is not an error body is kept as the message. */
export const ERROR_TEXT_LIMIT = 300

/**
 * Reads an error body given as text (parsed here) or as JSON already parsed. `fallback` is the
 * message when the body says nothing at all (e.g. `HTTP 502`).
 */
export function readErrorBody(body: unknown, fallback: string): ReadErrorBody {
  const json = typeof body === 'string' ? parseOrNull(body) : body
  const error = isRecord(json) ? json.error : undefined
  // The bare shape; svc's Ollama surface puts its own code beside it (`{"error": "…", "code": …}`).
  if (typeof error === 'string' && error)
    return { code: isRecord(json) ? stringOrNull(json.code) : null, message: error, param: null }
  if (isRecord(error) && typeof error.message === 'string' && error.message) {
    const code = stringOrNull(error.code) ?? stringOrNull(error.svc_code)
    return { code, message: error.message, param: stringOrNull(error.param) }
  }
  const text = typeof body === 'string' ? body.trim().slice(0, ERROR_TEXT_LIMIT) : ''
  return { code: null, message: text || fallback, param: null }
}

function parseOrNull(text: string): unknown {
  try {
    return JSON.parse(text)
  } catch {
    return null
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null
}

function stringOrNull(value: unknown): string | null {
  return typeof value === 'string' ? value : null
}
