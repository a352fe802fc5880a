/**
 * A realtime session's settings: what `session.update` changes, and the `session` object that
 * `session.created` / `session.updated` show (GA shape: `realtime.session` or
 * `realtime.transcription_session`). Audio is `audio/pcm` at 24 kHz both ways, the only format svc
 * takes: another format or rate in an update is a `request.invalid` error.
 */
import { SvcError } from '@svc/core'
import type { SessionPatch } from './client-events'

/** Server VAD settings (`turn_detection: {type: "server_vad"}`); times in ms. */
export interface TurnDetection {
  type: 'server_vad' | 'semantic_vad'
  threshold: number
  prefixPaddingMs: number
  silenceDurationMs: number
  /** Commit → a response, at the end of each turn (realtime sessions only). */
  createResponse: boolean
  /** Speech while a response runs cancels it (barge-in). */
  interruptResponse: boolean
}

export interface SessionConfig {
  id: string
  type: 'realtime' | 'transcription'
  /** The chat model (realtime): a slot name, registry ref or upstream ref, as `model` on /v1. */
  model: string
  instructions: string
  outputModalities: ('text' | 'audio')[]
  maxOutputTokens: number | 'inf'
  /** The stt model; `null`: no input transcription events (a realtime session still transcribes to answer). */
  transcription: { model: string; language?: string; prompt?: string } | null
  turnDetection: TurnDetection | null
  /** The tts model and voice. */
  ttsModel: string
  voice: string
  speed: number
  /** Unix seconds. */
  expiresAt: number
}

export const PCM_FORMAT = { type: 'audio/pcm', rate: 24_000 } as const

const VAD_DEFAULTS: TurnDetection = {
  type: 'server_vad',
  threshold: 0.5,
  prefixPaddingMs: 300,
  silenceDurationMs: 500,
  createResponse: true,
  interruptResponse: true,
}

/** A new session: realtime with server VAD, like OpenAI's; `queryModel` is `?model=`. */
export function newSessionConfig(
  id: string,
  queryModel: string | undefined,
  expiresAt: number,
): SessionConfig {
  return {
    id,
    type: 'realtime',
    model: queryModel ?? 'primary',
    instructions: '',
    outputModalities: ['audio'],
    maxOutputTokens: 'inf',
    transcription: { model: 'stt' },
    turnDetection: { ...VAD_DEFAULTS },
    ttsModel: 'tts',
    voice: 'alloy',
    speed: 1,
    expiresAt,
  }
}

/**
 * Applies a `session.update`. Switching to `transcription` makes `?model=` the stt model when the
 * update names none (for a transcription session the query's model is the stt model). Throws
 * 400 `request.invalid` for a format svc does not speak.
 */
export function applySessionPatch(
  config: SessionConfig,
  patch: SessionPatch,
  queryModel?: string,
): SessionConfig {
  const next: SessionConfig = { ...config }
  if (patch.type && patch.type !== config.type) {
    next.type = patch.type
    if (patch.type === 'transcription' && queryModel && !patch.audio?.input?.transcription?.model)
      next.transcription = { model: queryModel }
  }
  if (patch.model) next.model = patch.model
  if (patch.instructions !== undefined) next.instructions = patch.instructions
  if (patch.output_modalities) next.outputModalities = [...new Set(patch.output_modalities)]
  if (patch.max_output_tokens !== undefined) next.maxOutputTokens = patch.max_output_tokens
  const input = patch.audio?.input
  const output = patch.audio?.output
  checkFormat(input?.format, 'session.audio.input.format')
  checkFormat(output?.format, 'session.audio.output.format')
  if (input?.transcription !== undefined) {
    const t = input.transcription
    next.transcription = t && {
      model: t.model ?? config.transcription?.model ?? 'stt',
      ...(t.language ? { language: t.language } : {}),
      ...(t.prompt ? { prompt: t.prompt } : {}),
    }
  }
  if (input?.turn_detection !== undefined) {
    const t = input.turn_detection
    const base = config.turnDetection ?? VAD_DEFAULTS
    next.turnDetection = t && {
      type: t.type,
      threshold: t.threshold ?? base.threshold,
      prefixPaddingMs: t.prefix_padding_ms ?? base.prefixPaddingMs,
      silenceDurationMs: t.silence_duration_ms ?? base.silenceDurationMs,
      createResponse: t.create_response ?? base.createResponse,
      interruptResponse: t.interrupt_response ?? base.interruptResponse,
    }
  }
  if (output?.voice) next.voice = output.voice
  if (output?.speed !== undefined) next.speed = output.speed
  return next
}

function checkFormat(format: { type?: string; rate?: number } | undefined, param: string): void {
  if (!format) return
  if ((format.type && format.type !== PCM_FORMAT.type) || (format.rate && format.rate !== PCM_FORMAT.rate)) {
    throw new SvcError('request.invalid', `svc takes and gives audio/pcm at 24000 Hz only (pcm16, mono)`, {
      param,
    })
  }
}

/** The `session` object of `session.created` / `session.updated`. */
export function renderSession(config: SessionConfig): Record<string, unknown> {
  const t = config.turnDetection
  const input = {
    format: PCM_FORMAT,
    transcription: config.transcription,
    noise_reduction: null,
    turn_detection: t && {
      type: t.type,
      threshold: t.threshold,
      prefix_padding_ms: t.prefixPaddingMs,
      silence_duration_ms: t.silenceDurationMs,
      create_response: t.createResponse,
      interrupt_response: t.interruptResponse,
    },
  }
  if (config.type === 'transcription') {
    return {
      type: 'transcription',
      object: 'realtime.transcription_session',
      id: config.id,
      expires_at: config.expiresAt,
      audio: { input },
      include: [],
    }
  }
  return {
    type: 'realtime',
    object: 'realtime.session',
    id: config.id,
    model: config.model,
    expires_at: config.expiresAt,
    instructions: config.instructions,
    output_modalities: config.outputModalities,
    max_output_tokens: config.maxOutputTokens,
    audio: { input, output: { format: PCM_FORMAT, voice: config.voice, speed: config.speed } },
    tools: [],
    tool_choice: 'auto',
    tracing: null,
    truncation: 'auto',
    prompt: null,
  }
}
