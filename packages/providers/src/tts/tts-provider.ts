/**
 * The text-to-speech provider. Two engines, by where the slot runs:
 *
 * - on the host (`runtime = "process"`): svc's own OpenAI-compatible speech server over the real
 *   `espeak-ng` (`packages/providers/bin/espeak-speech-server.mjs`, run by this Node): model
 *   `espeak-ng`, nothing to download, fast and robotic, many languages;
 * - in a container: Kokoro-FastAPI (docs/providers.md, "tts"; image `kokoro-cpu`), model `kokoro-82m`
 *   baked into the image. It listens on 8880 whatever it is told (the image entry's `port`), opens its
 *   port only once the model is warm, maps the OpenAI voice names itself, and accepts only its own
 *   model names (so `model` is rewritten to `kokoro`). Its entrypoint would re-download the model at
 *   every start unless `DOWNLOAD_MODEL=false`; the release images have it already.
 *
 * A model that belongs to the other engine is refused at start with what to change. Both answer
 * `GET /health` (200) once ready and serve `POST /v1/audio/speech`.
 */
import { fileURLToPath } from 'node:url'
import type { ModelEntry } from '@svc/core'
import { type Backend, type Endpoint, httpOk, type Provider, type SlotContext } from '../contract'

/** The host engine's program (plain JavaScript, run with the Node that runs svc). */
export const ESPEAK_SPEECH_SERVER = fileURLToPath(
  new URL('../../bin/espeak-speech-server.mjs', import.meta.url),
)

/** Kokoro-FastAPI's entrypoint in its images (WORKDIR /app): starts uvicorn on 0.0.0.0:8880. */
export const KOKORO_ENTRYPOINT = '/app/entrypoint.sh'

export const TTS_ENGINES = ['espeak-ng', 'kokoro'] as const
export type TtsEngine = (typeof TTS_ENGINES)[number]

/** The `manifests/images.toml` entry per backend (container runtime: Kokoro). */
const IMAGES: Partial<Record<Backend, string>> = { cpu: 'kokoro-cpu' }

/** Which engine serves a model: by catalogue family, else by id; undefined = neither. */
export function ttsEngineFor(model: Pick<ModelEntry, 'id' | 'family'>): TtsEngine | undefined {
  const key = model.family ?? model.id
  if (key === 'espeak-ng') return 'espeak-ng'
  if (key === 'kokoro' || key === 'kokoro-82m') return 'kokoro'
  return undefined
}

export interface TtsProviderOptions {
  /** The Node binary that runs the host engine. Default: this process's (`process.execPath`). */
  node?: string
  /** The host engine script. Default {@link ESPEAK_SPEECH_SERVER}. */
  script?: string
  /** How long warming may take (ms). Default 3 min (Kokoro warms its model before it listens). */
  warmupTimeoutMs?: number
}

/** argv of the upstream for this slot; throws when the model's engine cannot run in this runtime. */
export function ttsCommand(ctx: SlotContext, options: TtsProviderOptions = {}): string[] {
  const engine = ttsEngineFor(ctx.model)
  if (ctx.runtime === 'process') {
    if (engine !== 'espeak-ng')
      throw new Error(
        `"${ctx.model.id}" runs in the Kokoro-FastAPI container (runtime = "container"); on the host the tts slot runs espeak-ng`,
      )
    return [
      options.node ?? process.execPath,
      options.script ?? ESPEAK_SPEECH_SERVER,
      '--host',
      ctx.host,
      '--port',
      String(ctx.port),
      ...ctx.args,
    ]
  }
  if (engine !== 'kokoro')
    throw new Error(
      `"${ctx.model.id}" runs on the host (runtime = "process"); in a container the tts slot runs Kokoro (kokoro-82m)`,
    )
  // The entrypoint takes no arguments: host and port are fixed by the image (0.0.0.0:8880).
  return [KOKORO_ENTRYPOINT]
}

export function createTtsProvider(options: TtsProviderOptions = {}): Provider {
  return {
    kind: 'tts',
    backends: ['cpu'],
    endpoints: ['speech'],
    warmupTimeoutMs: options.warmupTimeoutMs ?? 180_000,
    // USE_GPU/DEVICE come from the image entry (per backend); the model is in the image already.
    buildEnv: (ctx): Record<string, string> => (ctx.runtime === 'process' ? {} : { DOWNLOAD_MODEL: 'false' }),
    startCommand: (ctx) => ttsCommand(ctx, options),
    healthProbe: (base, signal) => httpOk(base, '/health', signal),
    requestPath(endpoint: Endpoint) {
      if (endpoint !== 'speech') throw new Error(`the tts provider does not serve ${endpoint}`)
      return '/v1/audio/speech'
    },
    refuseModel: (model) =>
      ttsEngineFor(model)
        ? undefined
        : `the tts slot serves espeak-ng (on the host) and kokoro-82m (in the Kokoro container); "${model.id}" is neither`,
    // Kokoro answers 400 invalid_model to anything but tts-1, tts-1-hd, kokoro, gpt-4o-mini-tts; the
    // espeak-ng server ignores the field.
    upstreamModel: ({ model }) => (ttsEngineFor(model) === 'kokoro' ? 'kokoro' : undefined),
    image: (backend) => IMAGES[backend],
  }
}
