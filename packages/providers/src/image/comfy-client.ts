/**
 * The few ComfyUI calls the image translator makes (docs/providers.md, "image"): upload an edit's
 * image and mask, queue a prompt, wait for its history entry, fetch an image, cancel. Completion is observed by polling
 * `GET /history/<id>` — no WebSocket: the history entry is the source of truth anyway (ComfyUI sends
 * `execution_success` before it writes history), polling needs no extra dependency, survives a
 * dropped socket, and works through any proxy in front of a remote ComfyUI. While the entry is
 * missing, `GET /queue` is checked now and then so that a prompt ComfyUI lost (restart, someone
 * cleared the queue) fails fast instead of waiting for the time-out.
 */
import { setTimeout as sleep } from 'node:timers/promises'
import { SvcError } from '@svc/core'
import { stringifyJsonBig } from './big-json'

export interface ComfyValidationError {
  type: string
  message: string
  details: string
  extra_info?: Record<string, unknown>
}

/** ComfyUI's 400 body for a refused graph. */
export interface ComfyRefusal {
  error: ComfyValidationError
  node_errors: Record<string, { errors: ComfyValidationError[]; class_type: string }>
}

export interface ComfyImage {
  filename: string
  subfolder: string
  type: string
}

export interface ComfyHistoryEntry {
  outputs: Record<string, { images?: ComfyImage[] }>
  status: { status_str: string; completed: boolean; messages: [string, Record<string, unknown>][] }
}

/** Thrown by `queuePrompt` when ComfyUI refuses the graph (HTTP 400). */
export class ComfyRefusedError extends Error {
  constructor(readonly refusal: ComfyRefusal) {
    super(refusal.error.message)
  }
}

function unreachable(base: URL, error: unknown): SvcError {
  return new SvcError('upstream.unavailable', `ComfyUI at ${base.origin} is not reachable`, { cause: error })
}

async function call(base: URL, path: string, init: RequestInit): Promise<Response> {
  try {
    return await fetch(new URL(path, base), init)
  } catch (error) {
    if (init.signal?.aborted) throw error
    throw unreachable(base, error)
  }
}

async function upstreamError(res: Response, what: string): Promise<SvcError> {
  const text = (await res.text().catch(() => '')).slice(0, 300)
  return new SvcError('upstream.error', `ComfyUI answered ${res.status} to ${what}${text ? `: ${text}` : ''}`)
}

/** `POST /prompt`. Resolves when queued; throws `ComfyRefusedError` on a 400 with node errors. */
export async function queuePrompt(
  base: URL,
  body: { prompt: unknown; client_id: string; prompt_id: string },
  signal: AbortSignal,
): Promise<void> {
  const res = await call(base, '/prompt', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: stringifyJsonBig(body),
    signal,
  })
  if (res.status === 400) {
    const refusal = (await res.json().catch(() => undefined)) as ComfyRefusal | undefined
    if (refusal?.error?.type)
      throw new ComfyRefusedError({ ...refusal, node_errors: refusal.node_errors ?? {} })
    throw new SvcError('upstream.error', 'ComfyUI refused the prompt without saying why')
  }
  if (!res.ok) throw await upstreamError(res, 'POST /prompt')
  await res.body?.cancel()
}

export interface WaitOptions {
  signal: AbortSignal
  /** Longest pause between two polls (ms). The first polls come sooner. Default 200. */
  pollMs?: number
}

/** Polls `GET /history/<id>` until the entry appears. Rejects with the signal's reason when it aborts. */
export async function waitForHistory(
  base: URL,
  promptId: string,
  options: WaitOptions,
): Promise<ComfyHistoryEntry> {
  const { signal } = options
  const maxPause = options.pollMs ?? 200
  let pause = Math.min(25, maxPause)
  let misses = 0
  for (let poll = 0; ; poll++) {
    const res = await call(base, `/history/${encodeURIComponent(promptId)}`, { signal })
    if (!res.ok) throw await upstreamError(res, `GET /history/${promptId}`)
    const history = (await res.json()) as Record<string, ComfyHistoryEntry>
    const entry = history[promptId]
    if (entry) return entry
    if (poll % 4 === 3) {
      misses = (await isQueued(base, promptId, signal)) ? 0 : misses + 1
      if (misses >= 2) {
        throw new SvcError(
          'upstream.error',
          `ComfyUI lost prompt ${promptId}: it is neither queued nor in history (restarted?)`,
        )
      }
    }
    await sleep(pause, undefined, { signal })
    pause = Math.min(maxPause, Math.ceil(pause * 1.5))
  }
}

async function isQueued(base: URL, promptId: string, signal: AbortSignal): Promise<boolean> {
  const res = await call(base, '/queue', { signal })
  if (!res.ok) return true // cannot tell; keep waiting
  const q = (await res.json()) as { queue_running?: unknown[][]; queue_pending?: unknown[][] }
  return [...(q.queue_running ?? []), ...(q.queue_pending ?? [])].some((item) => item[1] === promptId)
}

/** `GET /view` for one output image; checks that the bytes are a PNG. */
export async function fetchImage(base: URL, image: ComfyImage, signal: AbortSignal): Promise<Uint8Array> {
  const query = new URLSearchParams({
    filename: image.filename,
    subfolder: image.subfolder,
    type: image.type,
  })
  const res = await call(base, `/view?${query}`, { signal })
  if (!res.ok) throw await upstreamError(res, `GET /view for ${image.filename}`)
  const bytes = new Uint8Array(await res.arrayBuffer())
  const png = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]
  if (!png.every((b, i) => bytes[i] === b)) {
    throw new SvcError('upstream.error', `ComfyUI's ${image.filename} is not a PNG`)
  }
  return bytes
}

/** Where ComfyUI stored an upload (`POST /upload/image` answer). */
export interface ComfyUpload {
  name: string
  subfolder: string
  type: string
}

/**
 * `POST /upload/image` (multipart `image` with a file name, `type=input`, `subfolder`,
 * `overwrite=true`). Resolves to the name to give LoadImage / LoadImageMask (`<subfolder>/<name>`).
 * ComfyUI answers a refused upload with an empty 400 (or 413 over its `--max-upload-size`):
 * `upstream.error` naming the status.
 */
export async function uploadInput(
  base: URL,
  file: { bytes: Uint8Array; filename: string; subfolder: string },
  signal: AbortSignal,
): Promise<string> {
  const form = new FormData()
  form.append('image', new Blob([file.bytes as Uint8Array<ArrayBuffer>]), file.filename)
  form.append('type', 'input')
  form.append('subfolder', file.subfolder)
  form.append('overwrite', 'true')
  const res = await call(base, '/upload/image', { method: 'POST', body: form, signal })
  if (!res.ok) throw await upstreamError(res, `POST /upload/image for ${file.filename}`)
  const stored = (await res.json()) as ComfyUpload
  return stored.subfolder ? `${stored.subfolder}/${stored.name}` : stored.name
}

/**
 * Stops a prompt: `POST /interrupt {prompt_id}` (only interrupts if it is the running one) and
 * `POST /queue {delete: [id]}` (if still pending). Best effort, bounded by `timeoutMs`; never throws.
 */
export async function cancelPrompt(base: URL, promptId: string, timeoutMs = 5_000): Promise<void> {
  const signal = AbortSignal.timeout(timeoutMs)
  const post = (path: string, body: unknown) =>
    fetch(new URL(path, base), {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
      signal,
    })
      .then((res) => res.body?.cancel())
      .catch(() => undefined)
  await Promise.all([post('/queue', { delete: [promptId] }), post('/interrupt', { prompt_id: promptId })])
}

/** `POST /history {"delete": [id]}`: ComfyUI drops the prompt's history entry. Best effort, bounded. */
export async function forgetPrompt(base: URL, promptId: string, timeoutMs = 5_000): Promise<void> {
  await fetch(new URL('/history', base), {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ delete: [promptId] }),
    signal: AbortSignal.timeout(timeoutMs),
  })
    .then((res) => res.body?.cancel())
    .catch(() => undefined)
}
