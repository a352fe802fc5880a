import type { Server } from 'node:http'

/** The stand-in's speech for `text` in the voice of `reference`: a deterministic WAV (24 kHz, mono, s16). */
export function synthesize(text: string, reference: Uint8Array): Buffer
/** Parses a multipart/form-data body (the stand-in's own parser). */
export function parseMultipart(
  body: Buffer,
  contentType: string | undefined,
):
  | {
      fields: Record<string, string>
      files: Record<string, { filename: string; type: string | undefined; data: Buffer }>
    }
  | undefined
/** The stand-in's HTTP server, configured from `env` like the real one (PORT, HOST, VOICE_SAMPLE_PATH…). */
export function createStandIn(env?: Record<string, string | undefined>): Server
export const SAMPLE_RATE: number
