/**
 * FastFlowLM reports most failures as HTTP 200 with `{"error":"<string>"}` (docs/providers.md, "npu"), and a
 * `null` body when no ASR/embedding model is loaded. An OpenAI client would take those for successes.
 * These functions turn them into svc's error shape with a meaningful status, for the dispatcher to
 * apply to FLM's non-streaming JSON replies (SSE streams pass through untouched).
 */
import { type ErrorBody, SvcError } from '@svc/core'

export interface NormalisedFlmError {
  status: number
  body: ErrorBody
  headers: Record<string, string>
}

/**
 * Classifies one FLM reply. Returns undefined when it is a real success (pass it on unchanged);
 * otherwise the error to send instead:
 * - 200 + `{"error":"…"}` → 400 `upstream.error` (the documented cases are request problems: an
 *   unknown tag, missing fields), message prefixed "FastFlowLM: "
 * - 200 + `null` → 502 `upstream.error` (the ASR / embedding model is not loaded)
 * - 400 `{"error":"Invalid JSON"}` → 400 `request.invalid`
 * - 400 `{"error":{message,type,code}}` ("Max length reached!") → that status, the message kept
 * - 503 (NPU busy, queue full) → 503 `slot.unavailable` with `Retry-After: 1`
 * - anything else ≥ 400 → `upstream.error`, 4xx kept, 5xx (and 404: svc asked a wrong path) as 502
 */
export function normaliseFlmBody(status: number, body: unknown): NormalisedFlmError | undefined {
  const error = body !== null && typeof body === 'object' ? (body as { error?: unknown }).error : undefined
  if (status < 400 && body !== null && error === undefined) return undefined
  if (status < 400 && body === null) {
    return make(
      new SvcError(
        'upstream.error',
        'FastFlowLM returned no result: its speech-recognition or embedding model is not loaded',
        { status: 502 },
      ),
    )
  }
  const message = messageOf(error) ?? `HTTP ${status}`
  if (status < 400) {
    return make(
      new SvcError('upstream.error', `FastFlowLM: ${message}`, {
        status: 400,
        type: 'invalid_request_error',
      }),
    )
  }
  if (status === 503) {
    return make(
      new SvcError('slot.unavailable', `the NPU is busy: ${message}`, { headers: { 'Retry-After': '1' } }),
    )
  }
  if (status === 400 && message === 'Invalid JSON') {
    return make(new SvcError('request.invalid', 'FastFlowLM: request body is not valid JSON'))
  }
  const objectCode = typeof error === 'object' && error ? (error as { code?: unknown }).code : undefined
  const mirrored =
    typeof objectCode === 'number' && objectCode >= 400 && objectCode < 500 ? objectCode : status
  const final = mirrored >= 500 || mirrored === 404 ? 502 : mirrored
  return make(
    new SvcError('upstream.error', `FastFlowLM: ${message}`, {
      status: final,
      type: final < 500 ? 'invalid_request_error' : 'server_error',
    }),
  )
}

/**
 * Applies `normaliseFlmBody` to a fetch `Response`: JSON replies are read and, when they are errors,
 * replaced by svc's error response; everything else (SSE streams, audio) is returned untouched.
 */
export async function normaliseFlmResponse(res: Response): Promise<Response> {
  const type = res.headers.get('content-type') ?? ''
  if (!type.includes('application/json')) return res
  const text = await res.text()
  let body: unknown
  try {
    body = JSON.parse(text)
  } catch {
    body = text.trim() === '' && res.status < 400 ? null : { error: text.slice(0, 500) }
  }
  const normalised = normaliseFlmBody(res.status, body)
  if (!normalised) return new Response(text, { status: res.status, headers: res.headers })
  return new Response(JSON.stringify(normalised.body), {
    status: normalised.status,
    headers: { 'content-type': 'application/json', ...normalised.headers },
  })
}

function make(error: SvcError): NormalisedFlmError {
  return { status: error.status, body: error.toBody(), headers: { ...error.headers } }
}

function messageOf(error: unknown): string | undefined {
  if (typeof error === 'string') return error
  if (error && typeof error === 'object') {
    const m = (error as { message?: unknown }).message
    if (typeof m === 'string') return m
  }
  return undefined
}
