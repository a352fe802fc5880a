/**
 * Upstream error bodies of any shape → svc's error body (docs/architecture.md "Errors"). Shapes seen (docs/providers.md):
 * llama.cpp / OpenAI `{"error":{"message","type","code"}}`, whisper.cpp and FastFlowLM
 * `{"error":"…"}` (FLM even with HTTP 200), FastAPI `{"detail":"…"}` / `{"detail":[{loc,msg}]}` /
 * `{"detail":{"error","message","type"}}` (Kokoro), plain text, and HTML error pages of proxies.
 */
import { type ErrorCode, SvcError } from '@svc/core'
import type { NormaliseError } from './forward-types'

const MAX_MESSAGE = 500

/** The upstream's own message and type, from whatever it sent. */
export function upstreamMessage(
  body: string,
  contentType: string | undefined,
): { message: string; type?: string } {
  const text = body.trim()
  if (/json/i.test(contentType ?? '') || text.startsWith('{') || text.startsWith('[')) {
    try {
      return fromJson(JSON.parse(text))
    } catch {
      // not JSON after all
    }
  }
  if (/html/i.test(contentType ?? '') || /^<(!doctype|html)/i.test(text)) {
    const title = /<title[^>]*>([^<]*)<\/title>/i.exec(text)?.[1]
    const plain = (
      title ??
      text.replace(/<script[\s\S]*?<\/script>|<style[\s\S]*?<\/style>/gi, '').replace(/<[^>]+>/g, ' ')
    )
      .replace(/\s+/g, ' ')
      .trim()
    return { message: clip(plain || 'the upstream sent an HTML error page') }
  }
  return { message: clip(text || 'the upstream sent an empty error') }
}

function fromJson(data: unknown): { message: string; type?: string } {
  const reply = data as Record<string, unknown>
  const err = reply?.error
  if (typeof err === 'string') return { message: clip(err) }
  if (err && typeof err === 'object') {
    const error = err as Record<string, unknown>
    return {
      message: clip(String(error.message ?? JSON.stringify(error))),
      ...(typeof error.type === 'string' ? { type: error.type } : {}),
    }
  }
  const detail = reply?.detail
  if (typeof detail === 'string') return { message: clip(detail) }
  if (Array.isArray(detail)) {
    const parts = detail.map(
      (issue: { loc?: unknown[]; msg?: string }) => `${(issue.loc ?? []).join('.')}: ${issue.msg ?? ''}`,
    )
    return { message: clip(parts.join('; ')) }
  }
  if (detail && typeof detail === 'object') {
    const fields = detail as Record<string, unknown>
    return {
      message: clip(String(fields.message ?? fields.error ?? JSON.stringify(fields))),
      ...(typeof fields.type === 'string' ? { type: fields.type } : {}),
    }
  }
  if (typeof reply?.message === 'string') return { message: clip(reply.message) }
  return { message: clip(JSON.stringify(data)) }
}

/**
 * Builds the SvcError for an upstream error response. 4xx keep their status (the request was at
 * fault: 400/422 → `request.invalid`, 413 → `request.too_large`); 5xx and anything odd become 502
 * `upstream.error`; a loading upstream's 503 becomes 503 `slot.unavailable` with Retry-After.
 * The provider that knows the engine reads the reply first (`engine`, `ProviderRoute.normaliseError`):
 * what it recognises (a prompt over the context, an upload that is not audio) is answered its way.
 */
export function normaliseUpstreamError(
  status: number,
  body: string,
  contentType: string | undefined,
  who: string,
  engine?: NormaliseError,
): SvcError {
  const recognised = engine?.(status, parsedOrText(body))
  if (recognised) return recognised
  const { message, type } = upstreamMessage(body, contentType)
  const text = `${who}: ${message}`
  const typed = type ? { type } : {}
  if (status === 400 || status === 422) return new SvcError('request.invalid', text, typed)
  if (status === 413) return new SvcError('request.too_large', text)
  if (status === 503) return new SvcError('slot.unavailable', text, { headers: { 'Retry-After': '5' } })
  if (status === 401 || status === 403) {
    // The upstream refused svc's own credentials (a hosted service's API key): not the caller's fault.
    return new SvcError('upstream.error', `${text} (check the API key configured for this upstream)`, {
      status: 502,
    })
  }
  if (status >= 400 && status < 500) return new SvcError('upstream.error', text, { status, ...typed })
  return new SvcError('upstream.error', `${text} (HTTP ${status})`, { status: 502 })
}

/** Whether a 2xx JSON body is really an error (`{"error": …}` with HTTP 200, as FLM does). */
export function looksLikeErrorBody(firstBytes: string): boolean {
  return /^\s*\{\s*"error"\s*:/.test(firstBytes)
}

export function errorFor(code: ErrorCode, message: string): SvcError {
  return new SvcError(code, message)
}

function parsedOrText(body: string): unknown {
  const text = body.trim()
  if (!text.startsWith('{') && !text.startsWith('[')) return body
  try {
    return JSON.parse(text)
  } catch {
    return body
  }
}

function clip(s: string): string {
  return s.length > MAX_MESSAGE ? `${s.slice(0, MAX_MESSAGE)}…` : s
}
