/**
 * Voice cloning end to end: the tts slot swaps from espeak-ng (the real engine, on the
 * host) to the voice-cloning model and back with `svc slot load`; a voice uploaded by name is listed
 * and used. The cloning model runs in a container through the real Docker Engine; since Chatterbox
 * itself needs PyTorch and model weights, the container holds the Chatterbox TTS API stand-in from
 * @svc/testing (same protocol, same way of starting), in an image made here with `docker import`.
 */
import { execFile } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import {
  type ApiProcess,
  buildChatterboxStandInImage,
  chatterboxStandInSpeech,
  docker,
  ensureDockerEngine,
  missingPart,
  startApiWithConfig,
} from '@svc/testing'
import type OpenAI from 'openai'
import { BadRequestError } from 'openai'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { openaiClient } from './chat-requests'
import { call, cli, type SlotBody } from './live'

const exec = promisify(execFile)
const onPath = (program: string) =>
  exec('sh', ['-c', `command -v ${program}`]).then(
    () => true,
    () => false,
  )
const speechParts = (await Promise.all(['espeak-ng', 'ffmpeg'].map(onPath))).every(Boolean)
if (!speechParts) missingPart('espeak-ng and ffmpeg', 'run ./scripts/setup.sh (apt: espeak-ng ffmpeg)')

interface Voice {
  id: string
  name: string
  source: string
}

describe.skipIf(!speechParts)('the tts slot with the voice-cloning model', () => {
  let dir = ''
  let image = ''
  let repository = ''
  let api: ApiProcess | undefined
  let client: OpenAI
  let reference: Buffer
  const text = 'This is my voice now.'

  /** Containers of this test's image (whatever state they are in). */
  const containers = async () =>
    (await docker(['ps', '-aq', '--filter', `ancestor=${image}`])).split('\n').filter(Boolean)

  beforeAll(async () => {
    const engine = await ensureDockerEngine()
    if ('skip' in engine) return
    dir = await mkdtemp(join(tmpdir(), 'svc-cloning-'))
    repository = `localhost/svc-test-chatterbox-${randomBytes(3).toString('hex')}`
    image = await buildChatterboxStandInImage(`${repository}:v1`)
    const manifest = join(dir, 'images.toml')
    // As the shipped chatterbox-cpu entry, built locally (pinned to its image id); the image has no
    // python, so `program` runs the stand-in with node, as `python main.py` runs the real server.
    await writeFile(
      manifest,
      [
        '[image.chatterbox-cpu]',
        'provider = "tts"',
        'backend = "cpu"',
        `repository = "${repository}"`,
        'tag = "v1"',
        `digest = "${image}"`,
        'source = "local"',
        'program = "/usr/bin/node"',
        'env = { STANDIN_INIT_MS = "1500" }',
        'volumes = ["chatterbox/cache:/cache", "chatterbox/voices:/voices"]',
        '',
      ].join('\n'),
    )
    api = await startApiWithConfig({ env: { SVC_IMAGES_MANIFEST: manifest } })
    client = openaiClient(api)
  }, 180_000)

  afterAll(async () => {
    await api?.[Symbol.asyncDispose]()
    if (image) {
      const left = await containers().catch(() => [])
      if (left.length > 0) await docker(['rm', '-f', ...left]).catch(() => '')
      await docker(['rmi', '-f', image]).catch(() => '')
    }
    if (dir) await rm(dir, { recursive: true, force: true })
  })

  const tts = async () => (await call<SlotBody>(api!, '/api/slots/tts')).body
  const speak = async (voice: string, format: 'wav' | 'mp3' = 'wav') =>
    client.audio.speech.create({ model: 'tts', voice, input: text, response_format: format })

  it('starts on espeak-ng on the host, and records a voice sample with it', async (ctx) => {
    if (!api) return ctx.skip()
    const loaded = await cli(api, ['slot', 'load', 'tts', '--model', 'espeak-ng'])
    expect(loaded.code, loaded.stderr).toBe(0)
    expect((await tts()).upstream?.pid).toBeGreaterThan(0)
    reference = Buffer.from(await (await speak('alloy')).arrayBuffer())
    expect(reference.subarray(8, 12).toString('latin1')).toBe('WAVE')
  })

  it('takes the upload of a voice by name, stores it and lists it', async (ctx) => {
    if (!api) return ctx.skip()
    const form = new FormData()
    form.set('name', 'ada')
    form.set('audio_sample', new Blob([new Uint8Array(reference)], { type: 'audio/wav' }), 'ada.wav')
    const res = await fetch(`${api.url}/v1/audio/voices`, { method: 'POST', body: form })
    expect(res.status).toBe(201)
    expect(await res.json()).toMatchObject({
      id: 'ada',
      object: 'audio.voice',
      format: 'wav',
      bytes: reference.length,
    })
    expect((await readdir(join(api.stateDir, 'voices'))).sort()).toEqual(['ada.json', 'ada.wav'])
    const again = await fetch(`${api.url}/v1/audio/voices`, { method: 'POST', body: form })
    expect(again.status).toBe(400)
    expect(await again.json()).toMatchObject({ error: { code: 'request.invalid', param: 'name' } })
    // espeak-ng's own voices first, then the uploaded one.
    const list = await call<{ model: string; voices: Voice[] }>(api, '/v1/audio/voices')
    expect(list.body.model).toBe('espeak-ng')
    expect(list.body.voices.find((v) => v.id === 'alloy')?.source).toBe('builtin')
    expect(list.body.voices.filter((v) => v.source === 'cloned').map((v) => v.id)).toEqual(['ada'])
  })

  it('says that espeak-ng cannot speak in an uploaded voice', async (ctx) => {
    if (!api) return ctx.skip()
    const attempt = speak('ada')
    await expect(attempt).rejects.toBeInstanceOf(BadRequestError)
    await expect(attempt).rejects.toMatchObject({ param: 'voice' })
  })

  it('swaps to the cloning model with svc slot load, in a container', async (ctx) => {
    if (!api) return ctx.skip()
    const loaded = await cli(api, ['slot', 'load', 'tts', '--model', 'chatterbox'])
    expect(loaded.code, loaded.stderr + loaded.stdout).toBe(0)
    const slot = await tts()
    expect(slot).toMatchObject({ state: 'ready', model: 'chatterbox' })
    expect(slot.upstream?.container).toBeTruthy()
    expect(await containers()).toHaveLength(1)
    const models = await client.models.list()
    const entry = models.data.find((m) => m.id === 'tts') as unknown as { capabilities: string[] }
    expect(entry.capabilities).toEqual(['speech', 'voice_cloning'])
    // Chatterbox's own library (GET /voices there) is empty; the uploaded voice is svc's.
    const list = await call<{ model: string; voices: Voice[] }>(api, '/v1/audio/voices')
    expect(list.body).toMatchObject({ model: 'chatterbox', voices: [{ id: 'ada', source: 'cloned' }] })
    expect(list.body.voices).toHaveLength(1)
  }, 120_000)

  it('speaks in the uploaded voice: the engine cloned exactly that sample', async (ctx) => {
    if (!api) return ctx.skip()
    const wav = Buffer.from(await (await speak('ada')).arrayBuffer())
    expect(wav.equals(chatterboxStandInSpeech(text, reference))).toBe(true)
    const mp3 = await speak('ada', 'mp3')
    expect(mp3.headers.get('content-type')).toBe('audio/mpeg')
    // A voice the engine does not know is its default sample, not the uploaded one.
    const other = Buffer.from(await (await speak('alloy')).arrayBuffer())
    expect(other.equals(wav)).toBe(false)
  })

  it('swaps back to espeak-ng, and the container is gone', async (ctx) => {
    if (!api) return ctx.skip()
    const loaded = await cli(api, ['slot', 'load', 'tts', '--model', 'espeak-ng'])
    expect(loaded.code, loaded.stderr).toBe(0)
    expect((await tts()).upstream?.pid).toBeGreaterThan(0)
    expect(await containers()).toEqual([])
    expect((await (await speak('alloy')).arrayBuffer()).byteLength).toBeGreaterThan(1000)
  }, 60_000)

  it('deletes the voice', async (ctx) => {
    if (!api) return ctx.skip()
    const gone = await call(api, '/v1/audio/voices/ada', { method: 'DELETE' })
    expect(gone).toMatchObject({ status: 200, body: { id: 'ada', deleted: true } })
    expect((await call(api, '/v1/audio/voices/ada', { method: 'DELETE' })).body).toMatchObject({
      error: { code: 'voice.not_found' },
    })
    const list = await call<{ voices: Voice[] }>(api, '/v1/audio/voices')
    expect(list.body.voices.filter((v) => v.source === 'cloned')).toEqual([])
  })
})
