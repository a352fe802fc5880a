/** `/v1/audio/voices`: uploads that are not a voice are refused with a clear 4xx naming the field. */
import { describe, expect, it } from 'vitest'
import { testApp } from './helpers'

const wav = Buffer.concat([Buffer.from('RIFF\x24\x00\x00\x00WAVEfmt ', 'latin1'), Buffer.alloc(64)])
const upload = (fields: Record<string, string | Blob>) => {
  const form = new FormData()
  for (const [k, v] of Object.entries(fields)) form.set(k, v)
  return { method: 'POST', body: form }
}
const errorOf = async (res: Response) =>
  ((await res.json()) as { error: { code: string; param: string | null } }).error

describe('uploading voices', () => {
  it('stores a voice under <state>/voices and lists it, with the tts model in the slot', async () => {
    const { app } = await testApp()
    const res = await app.request('/v1/audio/voices', upload({ name: 'ada', audio_sample: new Blob([wav]) }))
    expect(res.status).toBe(201)
    expect(await res.json()).toMatchObject({
      id: 'ada',
      object: 'audio.voice',
      source: 'cloned',
      bytes: wav.length,
    })
    const list = await (await app.request('/v1/audio/voices')).json()
    expect(list).toMatchObject({ object: 'list', model: null, voices: [{ id: 'ada', format: 'wav' }] })
  })

  it('accepts the sample as file or voice_file too, and a language', async () => {
    const { app } = await testApp()
    expect((await app.request('/v1/audio/voices', upload({ name: 'a', file: new Blob([wav]) }))).status).toBe(
      201,
    )
    const res = await app.request(
      '/v1/audio/voices',
      upload({ name: 'b', voice_file: new Blob([wav]), language: 'pt-BR' }),
    )
    expect(await res.json()).toMatchObject({ id: 'b', language: 'pt-BR' })
  })

  it('refuses a missing name or sample, a JSON body, text posing as audio and a sample over 10 MB', async () => {
    const { app } = await testApp()
    expect(
      await errorOf(await app.request('/v1/audio/voices', upload({ audio_sample: new Blob([wav]) }))),
    ).toMatchObject({ code: 'request.invalid', param: 'name' })
    expect(await errorOf(await app.request('/v1/audio/voices', upload({ name: 'x' })))).toMatchObject({
      param: 'audio_sample',
    })
    const json = await app.request('/v1/audio/voices', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"name":"x"}',
    })
    expect(json.status).toBe(400)
    const text = await app.request(
      '/v1/audio/voices',
      upload({ name: 'x', audio_sample: new Blob(['hello']) }),
    )
    expect(await errorOf(text)).toMatchObject({ param: 'audio_sample' })
    const big = await app.request(
      '/v1/audio/voices',
      upload({ name: 'x', audio_sample: new Blob([wav, Buffer.alloc(11 * 1024 * 1024)]) }),
    )
    expect(big.status).toBe(413)
    expect((await (await app.request('/v1/audio/voices')).json()).voices).toEqual([])
  })

  it('deletes a voice once; a second delete is 404 voice.not_found', async () => {
    const { app } = await testApp()
    await app.request('/v1/audio/voices', upload({ name: 'ada', audio_sample: new Blob([wav]) }))
    expect((await app.request('/v1/audio/voices/ada', { method: 'DELETE' })).status).toBe(200)
    const again = await app.request('/v1/audio/voices/ada', { method: 'DELETE' })
    expect(again.status).toBe(404)
    expect(await errorOf(again)).toMatchObject({ code: 'voice.not_found' })
  })
})
