import { bodySizeLimit, readMultipartForm, SvcError } from '@svc/core'
import { Hono } from 'hono'
import { bodyLimit } from 'hono/body-limit'
import type { ChatDeps } from '../deps'
import { SpeechSchema } from '../http/schemas'
import { jsonBody } from '../http/validate'
import { postJson } from '../upstream/svc-api'

/** The API's own limit for transcriptions. */
const MAX_AUDIO_BYTES = 25 * 1024 * 1024

/**
 * Voice, through the chat app's token:
 * - `POST api/audio/transcriptions` (multipart `file`, optional `language`) → `{text}` from the
 *   `stt` slot (voice input: the browser records, this transcribes).
 * - `POST api/audio/speech` {input, voice?, model?} → audio (mp3) from the `tts` slot, streamed
 *   (read-aloud). Closing the request stops the synthesis upstream.
 */
export function audioRoutes(deps: ChatDeps) {
  return new Hono()
    .post(
      '/transcriptions',
      bodyLimit(bodySizeLimit(MAX_AUDIO_BYTES, 'a recording may be at most 25 MB')),
      async (c) => {
        const form = await readMultipartForm(c.req.raw, {
          message: 'expected multipart/form-data with a file',
          param: 'file',
        })
        const file = form.get('file')
        if (!(file instanceof File) || file.size === 0) {
          throw new SvcError('request.invalid', 'file: no recording', { param: 'file' })
        }
        const upstream = new FormData()
        upstream.set('model', String(form.get('model') ?? 'stt'))
        upstream.set('file', file, file.name || 'recording.webm')
        const language = form.get('language')
        if (typeof language === 'string' && language) upstream.set('language', language)
        upstream.set('response_format', 'json')
        const res = await deps.api.ok('/v1/audio/transcriptions', {
          method: 'POST',
          body: upstream,
          signal: c.req.raw.signal,
        })
        const body = (await res.json()) as { text?: unknown }
        return c.json({ text: typeof body.text === 'string' ? body.text.trim() : '' })
      },
    )
    .post('/speech', jsonBody(SpeechSchema), async (c) => {
      const body = c.req.valid('json')
      const res = await deps.api.ok(
        '/v1/audio/speech',
        postJson(
          { model: body.model, voice: body.voice, input: body.input, response_format: 'mp3' },
          c.req.raw.signal,
        ),
      )
      return new Response(res.body, {
        headers: {
          'content-type': res.headers.get('content-type') ?? 'audio/mpeg',
          'cache-control': 'no-store',
        },
      })
    })
}
