import { LEASABLE_STATES, type SlotManager, SvcError } from '@svc/core'
import { Hono } from 'hono'

/** One voice a speech request may name as `voice`. */
export interface Voice {
  id: string
  name: string
  language: string | null
  gender: string | null
  /** Where it comes from: the engine's built-in list (later also uploaded, cloned voices). */
  source: 'builtin' | 'cloned'
}

export interface VoiceList {
  object: 'list'
  /** The model the tts slot holds. */
  model: string
  voices: Voice[]
}

/**
 * The voices of the `tts` slot's engine, asked from the running upstream: espeak-ng's speech server
 * lists the OpenAI names it maps, then every espeak-ng voice; Kokoro-FastAPI lists its voices (as
 * objects, or as plain names before 0.3). Both are normalised to {@link Voice}. To add voices from
 * another source (cloned voices), append to what this returns.
 *
 * Throws 409 `model.not_loaded` when the tts slot is not running, 502 when its engine does not answer.
 */
export async function ttsVoices(manager: SlotManager, signal?: AbortSignal): Promise<VoiceList> {
  const slot = manager.get('tts').snapshot()
  const base = slot.upstream?.base
  if (!slot.model || !base || !(LEASABLE_STATES as readonly string[]).includes(slot.state)) {
    throw new SvcError(
      'model.not_loaded',
      'the tts slot is not running: load a speech model first (svc slot load tts --model espeak-ng)',
      { param: 'model' },
    )
  }
  let body: { voices?: unknown }
  try {
    const res = await fetch(`${base}/v1/audio/voices`, { signal: signal ?? AbortSignal.timeout(10_000) })
    if (!res.ok) throw new Error(`HTTP ${res.status}`)
    body = (await res.json()) as { voices?: unknown }
  } catch (error) {
    throw new SvcError(
      'upstream.unavailable',
      `the tts engine did not list its voices: ${(error as Error).message}`,
    )
  }
  return { object: 'list', model: slot.model, voices: normaliseVoices(body.voices) }
}

/**
 * An engine's `voices` as {@link Voice}s: objects with `id`/`name` (espeak server, Kokoro ≥ 0.3) or
 * plain names (older Kokoro); anything else is skipped. One entry per id, the first wins (espeak-ng
 * lists some languages under two voice files, e.g. `yue`).
 */
export function normaliseVoices(raw: unknown): Voice[] {
  const seen = new Set<string>()
  return (Array.isArray(raw) ? raw : [])
    .flatMap(normaliseVoice)
    .filter((v) => !seen.has(v.id) && seen.add(v.id))
}

function normaliseVoice(v: unknown): Voice[] {
  if (typeof v === 'string') return [{ id: v, name: v, language: null, gender: null, source: 'builtin' }]
  if (typeof v !== 'object' || v === null) return []
  const o = v as Record<string, unknown>
  const id = typeof o.id === 'string' ? o.id : typeof o.name === 'string' ? o.name : undefined
  if (!id) return []
  return [
    {
      id,
      name: typeof o.name === 'string' ? o.name : id,
      language: typeof o.language === 'string' ? o.language : null,
      gender: typeof o.gender === 'string' ? o.gender : null,
      source: 'builtin',
    },
  ]
}

/** `GET /v1/audio/voices` → {@link VoiceList}. */
export function audioVoicesRoutes(deps: { manager: SlotManager }) {
  return new Hono().get('/', async (c) => c.json(await ttsVoices(deps.manager, c.req.raw.signal)))
}
