import { LEASABLE_STATES, type SlotManager, SvcError } from '@svc/core'
import { ttsEngineFor, type VoiceStore } from '@svc/providers'
import { Hono } from 'hono'
import { uploadedVoices } from './voice-uploads'

/** One voice a speech request may name as `voice`. */
export interface Voice {
  id: string
  name: string
  language: string | null
  gender: string | null
  /** Where it comes from: the engine's built-in list, or uploaded to svc for voice cloning. */
  source: 'builtin' | 'cloned'
}

export interface VoiceList {
  object: 'list'
  /** The model the tts slot holds; null when it holds none (then only uploaded voices are listed). */
  model: string | null
  voices: Voice[]
}

/**
 * The voices of the `tts` slot's engine, asked from the running upstream: espeak-ng's speech server
 * lists the OpenAI names it maps, then every espeak-ng voice; Kokoro-FastAPI lists its voices (as
 * objects, or as plain names before 0.3) at `/v1/audio/voices`; Chatterbox lists its own library at
 * `/voices`. All are normalised to {@link Voice}. A tts slot that is not running has none (`model`
 * null). Throws 502 when the engine does not answer.
 */
export async function ttsVoices(
  manager: SlotManager,
  signal?: AbortSignal,
): Promise<{ model: string | null; voices: Voice[] }> {
  const slot = manager.get('tts')
  const state = slot.snapshot()
  const base = state.upstream?.base
  const held = slot.currentModel()
  if (!state.model || !base || !held || !(LEASABLE_STATES as readonly string[]).includes(state.state)) {
    return { model: null, voices: [] }
  }
  const path = ttsEngineFor(held) === 'chatterbox' ? '/voices' : '/v1/audio/voices'
  let body: { voices?: unknown }
  try {
    const res = await fetch(`${base}${path}`, { signal: signal ?? AbortSignal.timeout(10_000) })
    if (!res.ok) throw new Error(`HTTP ${res.status}`)
    body = (await res.json()) as { voices?: unknown }
  } catch (error) {
    throw new SvcError(
      'upstream.unavailable',
      `the tts engine did not list its voices: ${(error as Error).message}`,
    )
  }
  return { model: state.model, voices: normaliseVoices(body.voices) }
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

/**
 * `GET /v1/audio/voices` → {@link VoiceList}: the running engine's voices, then the voices uploaded
 * to svc (`source: "cloned"`, listed whether or not the tts slot runs). An uploaded voice shadows an
 * engine voice of the same id, as it does in speech requests.
 */
export function audioVoicesRoutes(deps: { manager: SlotManager; voices: VoiceStore }) {
  return new Hono().get('/', async (c) => {
    const [engine, uploaded] = await Promise.all([
      ttsVoices(deps.manager, c.req.raw.signal),
      uploadedVoices(deps.voices),
    ])
    const mine = new Set(uploaded.map((v) => v.id))
    const list: VoiceList = {
      object: 'list',
      model: engine.model,
      voices: [...engine.voices.filter((v) => !mine.has(v.id)), ...uploaded],
    }
    return c.json(list)
  })
}
