/**
 * Asking a speech engine for audio from svc itself (not relayed): the OpenAI-compatible engines
 * (svc's espeak-ng server, Kokoro-FastAPI) for one sentence as WAV, and the error bodies any of
 * them (Chatterbox too) answer, read into svc's errors.
 */
import { SvcError } from '@svc/core'
import type { TranslateRequest } from '../contract'

/** `POST <path>` on the engine; a connection failure is 502 `upstream.unavailable`. */
export async function fetchEngine(
  base: URL,
  path: string,
  init: { headers?: Record<string, string>; body: string | FormData },
  signal: AbortSignal,
): Promise<Response> {
  try {
    return await fetch(new URL(path, base), { method: 'POST', ...init, signal })
  } catch (error) {
    if (signal.aborted) throw error
    throw new SvcError(
      'upstream.unavailable',
      `the speech engine did not answer: ${(error as Error).message}`,
    )
  }
}

/**
 * `text` spoken by an OpenAI-compatible engine as WAV, with the request's other fields (voice,
 * speed, the engine's own) as the client sent them; `model` is what the engine calls it, when that
 * differs (Kokoro accepts only its own names). Throws the engine's refusal as svc's error.
 */
export async function openaiEngineWav(
  request: Pick<TranslateRequest, 'base' | 'body'>,
  text: string,
  signal: AbortSignal,
  model?: string,
): Promise<Response> {
  const { stream_format: _, ...fields } = request.body
  const body = { ...fields, ...(model ? { model } : {}), input: text, response_format: 'wav' }
  const res = await fetchEngine(
    request.base,
    '/v1/audio/speech',
    { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) },
    signal,
  )
  if (!res.ok) throw await engineError(res)
  return res
}

/**
 * An engine's error reply as svc's error: OpenAI's `{"error":{message,param}}` (espeak-ng server,
 * Kokoro, Chatterbox), FastAPI's 422 `{"detail":[…]}`, or plain text. 400/422 are the client's
 * (`request.invalid`, naming the field when the engine did); anything else is 502 `upstream.error`.
 */
export async function engineError(res: Response): Promise<SvcError> {
  const text = (await res.text()).slice(0, 4000)
  let message = text.trim() || `HTTP ${res.status}`
  let param: string | null = null
  try {
    const body = JSON.parse(text) as {
      error?: { message?: string; param?: unknown }
      detail?: { loc?: unknown[]; msg?: string }[] | string
    }
    if (body.error?.message) {
      message = body.error.message
      if (typeof body.error.param === 'string') param = body.error.param
    } else if (Array.isArray(body.detail) && body.detail[0]) {
      const loc = body.detail[0].loc ?? []
      param = typeof loc.at(-1) === 'string' ? (loc.at(-1) as string) : null
      message = `${param ?? 'request'}: ${body.detail[0].msg ?? 'invalid'}`
    } else if (typeof body.detail === 'string') message = body.detail
  } catch {
    // not JSON: the text is the message
  }
  message = `speech engine: ${message}`
  if (res.status === 400 || res.status === 422) return new SvcError('request.invalid', message, { param })
  return new SvcError('upstream.error', `${message} (HTTP ${res.status})`, { status: 502 })
}
