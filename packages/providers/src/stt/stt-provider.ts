/**
 * The speech-to-text provider: upstream whisper.cpp `whisper-server` (docs/providers.md, "stt"), on the host
 * (`svc engines build whisper-server`) or in the `whisper-cpu` image.
 *
 * argv: `-m <model> --host --port --inference-path /v1/audio/transcriptions` (so the OpenAI path is
 * served as is), `--convert` (ffmpeg turns any upload — ogg, webm, m4a, … — into 16 kHz WAV; without
 * it only wav/mp3/flac decode), `--tmp-dir` (where those conversions go: a temp dir, not the API's
 * working directory), `-l auto` (OpenAI detects the language unless told; whisper-server's default is
 * `en`, and an English-only model ignores `auto` anyway). Slot `args` come last; a flag given there
 * replaces ours (`-l de`, `--language de`).
 *
 * Health: the server loads the model before it listens, then `GET /health` answers 200
 * `{"status":"ok"}` (503 `{"status":"loading model"}` while `POST /load` swaps models).
 * The multipart `model` field is ignored by whisper-server, so no rewrite is needed. Its error handler
 * turns every 400 body into the plain text `Invalid request` (the handler's `{"error":…}` is lost).
 */
import { tmpdir } from 'node:os'
import type { ModelEntry } from '@svc/core'
import { listenArgs, upstreamArgv } from '../argv'
import { type Backend, type Endpoint, httpOk, type Provider, type SlotContext } from '../contract'
import { createTranscriptionStream } from './transcription-stream'
import { normaliseWhisperError } from './whisper-errors'

export const WHISPER_INFERENCE_PATH = '/v1/audio/transcriptions'

/** Flag spellings whisper-server accepts for the options svc sets (short and long are one option). */
const ALIASES: Record<string, string> = { '-l': '--language' }

/** The `manifests/images.toml` entry per backend (container runtime). */
const IMAGES: Partial<Record<Backend, string>> = { cpu: 'whisper-cpu' }

export interface SttProviderOptions {
  /** How long a model may take to load (ms). Default 5 min (large-v3 from a slow disk). */
  warmupTimeoutMs?: number
  /** Where `--convert` writes its temp files on the host. Default the OS temp dir. */
  hostTmpDir?: string
  /** The ffmpeg that decodes uploads for streaming transcription (default `ffmpeg` on PATH). */
  ffmpeg?: string
}

export function whisperServerArgs(
  ctx: SlotContext,
  options: Pick<SttProviderOptions, 'hostTmpDir'> = {},
): string[] {
  return upstreamArgv(ctx.args, ALIASES)
    .fixed('-m', ctx.modelPath, ...listenArgs(ctx), '--inference-path', WHISPER_INFERENCE_PATH)
    .default('--convert')
    .default('--tmp-dir', ctx.runtime === 'process' ? (options.hostTmpDir ?? tmpdir()) : '/tmp')
    .default('--language', 'auto')
    .build()
}

/** Whether a model is a whisper.cpp ggml model (what whisper-server loads). */
export function isWhisperModel(model: ModelEntry): boolean {
  return model.format === 'whisper'
}

export function createSttProvider(options: SttProviderOptions = {}): Provider {
  return {
    kind: 'stt',
    backends: ['cpu'],
    endpoints: ['transcriptions', 'translations'],
    warmupTimeoutMs: options.warmupTimeoutMs ?? 300_000,
    buildEnv: () => ({}),
    startCommand: (ctx) => ['whisper-server', ...whisperServerArgs(ctx, options)],
    healthProbe: (base, signal) => httpOk(base, '/health', signal),
    requestPath(endpoint: Endpoint) {
      if (endpoint !== 'transcriptions' && endpoint !== 'translations')
        throw new Error(`whisper-server does not serve ${endpoint}`)
      return WHISPER_INFERENCE_PATH
    },
    // One inference path serves both: whisper-server translates to English when `translate` is set.
    multipartFields: (endpoint) => (endpoint === 'translations' ? { translate: 'true' } : undefined),
    // An upload that is not audio: the caller's mistake (400 audio.unreadable), not the server's.
    normaliseError: normaliseWhisperError,
    // `stream=true`: svc cuts the upload at its pauses and streams each segment's text (SSE).
    translate: createTranscriptionStream(WHISPER_INFERENCE_PATH, options),
    refuseModel: (model) =>
      isWhisperModel(model)
        ? undefined
        : `whisper-server loads whisper.cpp ggml models (format "whisper", e.g. whisper-base.en); "${model.id}" is a ${model.format} model`,
    image: (backend) => IMAGES[backend],
  }
}
