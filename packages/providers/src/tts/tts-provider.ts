/**
 * The text-to-speech provider. Three engines:
 *
 * - on the host (`runtime = "process"`): svc's own OpenAI-compatible speech server over the real
 *   `espeak-ng` (`packages/providers/bin/espeak-speech-server.mjs`, run by this Node): model
 *   `espeak-ng`, nothing to download, fast and robotic, many languages;
 * - in a container: Kokoro-FastAPI (docs/providers.md, "tts"; image `kokoro-cpu`), model `kokoro-82m`
 *   baked into the image. It listens on 8880 whatever it is told (the image entry's `port`), opens its
 *   port only once the model is warm, maps the OpenAI voice names itself, and accepts only its own
 *   model names (so `model` is rewritten to `kokoro`). Its entrypoint would re-download the model at
 *   every start unless `DOWNLOAD_MODEL=false`; the release images have it already;
 * - in a container: Chatterbox TTS API (docs/providers.md, "tts"; images `chatterbox-cpu` / `chatterbox-cuda`),
 *   model `chatterbox`, the voice-cloning engine. Its image runs `python main.py` in /app, configured
 *   by env (PORT, HOST, DEVICE); it downloads its weights from Hugging Face into /cache at first start
 *   (a volume under <state>/volumes/, kept) and answers `GET /health` at once with a `status` that
 *   turns "healthy" when the model is loaded. Speech goes through the cloning translator
 *   (cloning-speech.ts), which brings the voice references uploaded to svc.
 *
 * Each model has its runtime (`runtimeFor`): a tts slot whose config names none runs espeak-ng on the
 * host and the others in a container, so swapping is an ordinary load. A model in the wrong runtime
 * (the slot config says so) is refused at start with what to change. All answer `GET /health` once
 * ready and serve `POST /v1/audio/speech`. A text of several sentences, or `stream_format: "sse"`, is
 * streamed by svc sentence by sentence whatever the engine (speech-translator.ts).
 */
import { fileURLToPath } from 'node:url'
import type { ModelEntry } from '@svc/core'
import { listenArgs } from '../argv'
import type { Backend, Endpoint, Provider, SlotContext } from '../contract'
import { createCloningSpeech } from './cloning-speech'
import { createSpeechTranslator } from './speech-translator'
import type { VoiceStore } from './voice-store'

/** The host engine's program (plain JavaScript, run with the Node that runs svc). */
export const ESPEAK_SPEECH_SERVER = fileURLToPath(
  new URL('../../bin/espeak-speech-server.mjs', import.meta.url),
)

/** Kokoro-FastAPI's entrypoint in its images (WORKDIR /app): starts uvicorn on 0.0.0.0:8880. */
export const KOKORO_ENTRYPOINT = '/app/entrypoint.sh'

/** What Chatterbox's image runs (its Dockerfile's CMD, in WORKDIR /app). */
export const CHATTERBOX_COMMAND = ['python', 'main.py'] as const

export const TTS_ENGINES = ['espeak-ng', 'kokoro', 'chatterbox'] as const
export type TtsEngine = (typeof TTS_ENGINES)[number]

/** The `manifests/images.toml` entry per engine and backend (container runtime). */
const IMAGES: Record<Exclude<TtsEngine, 'espeak-ng'>, Partial<Record<Backend, string>>> = {
  kokoro: { cpu: 'kokoro-cpu' },
  chatterbox: { cpu: 'chatterbox-cpu', cuda: 'chatterbox-cuda' },
}

/** Which engine serves a model: by catalogue family, else by id; undefined = none. */
export function ttsEngineFor(model: Pick<ModelEntry, 'id' | 'family'>): TtsEngine | undefined {
  const key = model.family ?? model.id
  if (key === 'espeak-ng') return 'espeak-ng'
  if (key === 'kokoro' || key === 'kokoro-82m') return 'kokoro'
  if (key === 'chatterbox') return 'chatterbox'
  return undefined
}

export interface TtsProviderOptions {
  /** The Node binary that runs the host engine. Default: this process's (`process.execPath`). */
  node?: string
  /** The host engine script. Default {@link ESPEAK_SPEECH_SERVER}. */
  script?: string
  /**
   * How long warming may take (ms). Default 20 min: Kokoro warms its model before it listens, and
   * Chatterbox downloads its weights (a few GB) at its first start.
   */
  warmupTimeoutMs?: number
  /** Voice references uploaded to svc; with them, the cloning engine speaks in uploaded voices. */
  voices?: VoiceStore
  /** ffmpeg, to encode the cloning engine's WAV and streamed speech. Default `ffmpeg` on PATH. */
  ffmpeg?: string
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
      ...listenArgs(ctx),
      ...ctx.args,
    ]
  }
  if (engine === 'chatterbox') return [...CHATTERBOX_COMMAND, ...ctx.args]
  if (engine !== 'kokoro')
    throw new Error(
      `"${ctx.model.id}" runs on the host (runtime = "process"); in a container the tts slot runs Kokoro (kokoro-82m) or Chatterbox (chatterbox)`,
    )
  // The entrypoint takes no arguments: host and port are fixed by the image (0.0.0.0:8880).
  return [KOKORO_ENTRYPOINT]
}

/** The container's env: Chatterbox is configured by env (PORT, HOST, DEVICE, its cache and library). */
export function ttsEnv(ctx: SlotContext): Record<string, string> {
  if (ctx.runtime === 'process') return {}
  if (ttsEngineFor(ctx.model) !== 'chatterbox') return { DOWNLOAD_MODEL: 'false' }
  return {
    PORT: String(ctx.port),
    HOST: ctx.host,
    DEVICE: ctx.backend === 'cuda' ? 'cuda' : 'cpu',
    MODEL_CACHE_DIR: '/cache',
    HF_HOME: '/cache/huggingface',
    VOICE_LIBRARY_DIR: '/voices',
  }
}

/**
 * Ready when `GET /health` answers 200 and, if it says a `status`, a ready one: Chatterbox answers
 * at once with "initializing" (older releases) or "ready" plus an `initialization_state`, and only
 * speaks once the model is loaded; espeak-ng says "ok", Kokoro "healthy".
 */
export async function ttsHealthy(base: URL, signal: AbortSignal): Promise<boolean> {
  try {
    const res = await fetch(new URL('/health', base), { signal })
    if (!res.ok) {
      await res.body?.cancel()
      return false
    }
    const body = (await res.json().catch(() => ({}))) as { status?: unknown; initialization_state?: unknown }
    if (body.initialization_state === 'initializing' || body.initialization_state === 'error') return false
    return body.status === undefined || ['ok', 'healthy', 'ready'].includes(String(body.status))
  } catch {
    return false
  }
}

export function createTtsProvider(options: TtsProviderOptions = {}): Provider {
  const clones = (model: ModelEntry) => ttsEngineFor(model) === 'chatterbox'
  return {
    kind: 'tts',
    // cuda: only Chatterbox has an NVIDIA image; the others are refused there at start.
    backends: ['cpu', 'cuda'],
    endpoints: ['speech'],
    warmupTimeoutMs: options.warmupTimeoutMs ?? 1_200_000,
    buildEnv: ttsEnv,
    startCommand: (ctx) => ttsCommand(ctx, options),
    healthProbe: ttsHealthy,
    requestPath(endpoint: Endpoint) {
      if (endpoint !== 'speech') throw new Error(`the tts provider does not serve ${endpoint}`)
      return '/v1/audio/speech'
    },
    refuseModel: (model) =>
      ttsEngineFor(model)
        ? undefined
        : `the tts slot serves espeak-ng (on the host), kokoro-82m and chatterbox (in containers); "${model.id}" is none of them`,
    // Kokoro answers 400 invalid_model to anything but tts-1, tts-1-hd, kokoro, gpt-4o-mini-tts; the
    // espeak-ng server ignores the field.
    upstreamModel: ({ model }) => (ttsEngineFor(model) === 'kokoro' ? 'kokoro' : undefined),
    // Without a model (the picker asking what could run here): the default container engine's image.
    image: (backend, model) => {
      const engine = model ? ttsEngineFor(model) : backend === 'cuda' ? 'chatterbox' : 'kokoro'
      return engine && engine !== 'espeak-ng' ? IMAGES[engine][backend] : undefined
    },
    runtimeFor: (model) => {
      const engine = ttsEngineFor(model)
      return engine === undefined ? undefined : engine === 'espeak-ng' ? 'process' : 'container'
    },
    // Streaming (several sentences, SSE) and uploaded voices; anything else is relayed as it came.
    translate: createSpeechTranslator({
      ...(options.voices
        ? {
            cloning: createCloningSpeech({
              voices: options.voices,
              clones,
              ...(options.ffmpeg ? { ffmpeg: options.ffmpeg } : {}),
            }),
          }
        : {}),
      upstreamModel: (model) => (ttsEngineFor(model) === 'kokoro' ? 'kokoro' : undefined),
      ...(options.ffmpeg ? { ffmpeg: options.ffmpeg } : {}),
    }),
  }
}
