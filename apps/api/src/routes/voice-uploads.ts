import { bodySizeLimit, readMultipartForm, SvcError } from '@svc/core'
import type { StoredVoice, VoiceStore } from '@svc/providers'
import { Hono } from 'hono'
import { bodyLimit } from 'hono/body-limit'

/** A voice a speech request may name as `voice`; uploaded ones are `source: "cloned"`. */
export interface UploadedVoice {
  id: string
  object: 'audio.voice'
  name: string
  language: string | null
  gender: null
  source: 'cloned'
  type: 'audio_sample'
  created_at: number
  format: string
  bytes: number
  sha256: string
}

/** The uploaded voices in the shape `GET /v1/audio/voices` lists them (see `voiceUploadRoutes`). */
export async function uploadedVoices(store: VoiceStore): Promise<UploadedVoice[]> {
  return (await store.list()).map(uploadedVoice)
}

function uploadedVoice(v: StoredVoice): UploadedVoice {
  return {
    id: v.name,
    object: 'audio.voice',
    name: v.name,
    language: v.language,
    gender: null,
    source: 'cloned',
    type: 'audio_sample',
    created_at: v.created_at,
    format: v.format,
    bytes: v.bytes,
    sha256: v.sha256,
  }
}

/** Room for the 10 MiB sample plus the form's other fields. */
const MAX_UPLOAD_BYTES = 10 * 1024 * 1024 + 64 * 1024

/**
 * Voice references for the voice-cloning TTS model, under `/v1/audio/voices` (OpenAI's custom voices
 * path, so SDK users find it where they look):
 *
 * - `GET /` is audio-voices.ts: the engine's voices and these (`uploadedVoices`).
 * - `POST /` multipart: `name` (1–64 letters, digits, - or _), `audio_sample` (OpenAI's field name;
 *   `file` and Chatterbox's `voice_file` also work: wav, mp3, flac, ogg or m4a, at most 10 MiB, a few
 *   seconds of one clear speaker), optional `language` → 201 with the voice. OpenAI's `consent`
 *   recording is not asked for: this is the operator's own server. An existing name is 400 (delete it
 *   first); the upload is stored atomically under `<state>/voices/`.
 * - `DELETE /:name` → `{id, object, deleted:true}`, or 404 `voice.not_found`.
 *
 * A speech request names an uploaded voice as `voice: "<name>"` (or `{"id": "<name>"}`).
 */
export function voiceUploadRoutes(deps: { voices: VoiceStore }) {
  return new Hono()
    .post(
      '/',
      bodyLimit(bodySizeLimit(MAX_UPLOAD_BYTES, 'a voice sample may be at most 10 MB')),
      async (c) => {
        const form = await readMultipartForm(c.req.raw, {
          message: 'upload a voice as multipart/form-data (name, audio_sample)',
          unreadable: 'the multipart body could not be read',
          param: 'audio_sample',
        })
        const name = form.get('name')
        if (typeof name !== 'string' || !name)
          throw new SvcError('request.invalid', 'name is required (the voice name to use as `voice`)', {
            param: 'name',
          })
        const sample = form.get('audio_sample') ?? form.get('file') ?? form.get('voice_file')
        if (!(sample instanceof File))
          throw new SvcError(
            'request.invalid',
            'audio_sample is required (a file: wav, mp3, flac, ogg or m4a)',
            {
              param: 'audio_sample',
            },
          )
        const language = form.get('language')
        const stored = await deps.voices.add({
          name,
          data: new Uint8Array(await sample.arrayBuffer()),
          ...(typeof language === 'string' && language ? { language } : {}),
        })
        return c.json(uploadedVoice(stored), 201)
      },
    )
    .delete('/:name', async (c) => {
      const name = c.req.param('name')
      if (!(await deps.voices.remove(name)))
        throw new SvcError('voice.not_found', `no uploaded voice named "${name.slice(0, 80)}"`, {
          param: 'voice',
        })
      return c.json({ id: name, object: 'audio.voice' as const, deleted: true })
    })
}
