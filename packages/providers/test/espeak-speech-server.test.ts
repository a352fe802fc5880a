/**
 * svc's espeak-ng speech server (the tts slot's host engine) as the tts provider starts it, through
 * the real process runtime, with the real espeak-ng and ffmpeg.
 */
import { execFile } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import type { UpstreamHandle } from '@svc/core'
import { missingPart } from '@svc/testing'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createProcessRuntime } from '../src/runtimes/process'
import { resolveProgram } from '../src/runtimes/program'
import { createTtsProvider } from '../src/tts/tts-provider'
import { ttsModel } from './tts-models'

const exec = promisify(execFile)
const onPath = (program: string) => {
  try {
    return Boolean(resolveProgram(program, process.env))
  } catch {
    return false
  }
}
const available = ['espeak-ng', 'ffmpeg', 'ffprobe'].every(onPath)
if (!available) missingPart('espeak-ng and ffmpeg', 'run ./scripts/setup.sh (apt: espeak-ng ffmpeg)')

const model = ttsModel('espeak-ng')

/** The pids of `pid`'s children (all threads). */
function children(pid: number): number[] {
  try {
    return readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8')
      .trim()
      .split(/\s+/)
      .filter(Boolean)
      .map(Number)
  } catch {
    return []
  }
}

/** The server as the tts provider starts it, with the slot's `args`, once its health probe passes. */
async function startSpeechServer(stateDir: string, args: string[]): Promise<UpstreamHandle> {
  const handle = await createProcessRuntime({ stateDir, env: process.env }).start({
    slot: 'tts',
    provider: createTtsProvider(),
    model,
    backend: 'cpu',
    args,
    signal: AbortSignal.timeout(30_000),
  })
  const deadline = Date.now() + 30_000
  while (!(await createTtsProvider().healthProbe(handle.base, AbortSignal.timeout(2_000)))) {
    if (Date.now() > deadline) throw new Error(`not healthy:\n${handle.logs().join('\n')}`)
    await new Promise((r) => setTimeout(r, 50))
  }
  return handle
}

describe.skipIf(!available)('the espeak-ng speech server', () => {
  let dir: string
  let handle: UpstreamHandle
  const url = (path: string) => new URL(path, handle.base)
  const speech = (body: unknown, signal?: AbortSignal) =>
    fetch(url('/v1/audio/speech'), {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: typeof body === 'string' ? body : JSON.stringify(body),
      ...(signal ? { signal } : {}),
    })
  /** Seconds of audio, by decoding it (a streamed FLAC's header has no length for ffprobe to read). */
  const duration = async (audio: Buffer, ext: string) => {
    const file = join(dir, `probe.${ext}`)
    await writeFile(file, audio)
    const args = ['-v', 'error', '-i', file, '-f', 's16le', '-ac', '1', '-ar', '16000', 'pipe:1']
    const { stdout } = await exec('ffmpeg', args, { encoding: 'buffer', maxBuffer: 64 * 1024 * 1024 })
    return stdout.length / 2 / 16_000
  }

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'svc-tts-'))
    handle = await startSpeechServer(dir, [])
  })

  afterAll(async () => {
    await handle?.stop(5_000)
    if (dir) await rm(dir, { recursive: true, force: true })
  })

  it('lists the OpenAI voices and espeak-ng’s own', async () => {
    const body = (await (await fetch(url('/v1/audio/voices'))).json()) as {
      voices: { id: string; espeak?: string }[]
      variants: string[]
    }
    const ids = body.voices.map((v) => v.id)
    expect(ids).toEqual(expect.arrayContaining(['alloy', 'echo', 'shimmer', 'verse', 'en-us', 'fr-fr']))
    expect(body.voices.find((v) => v.id === 'alloy')?.espeak).toBe('en-us+f3')
    expect(body.variants).toEqual(expect.arrayContaining(['f3', 'm3', 'klatt']))
  })

  it.each([
    ['wav', 'audio/wav', (b: Buffer) => b.subarray(0, 4).toString('latin1') === 'RIFF'],
    ['mp3', 'audio/mpeg', (b: Buffer) => b.subarray(0, 3).toString('latin1') === 'ID3' || b[0] === 0xff],
    ['opus', 'audio/opus', (b: Buffer) => b.subarray(0, 4).toString('latin1') === 'OggS'],
    ['aac', 'audio/aac', (b: Buffer) => b[0] === 0xff && ((b[1] ?? 0) & 0xf0) === 0xf0],
    ['flac', 'audio/flac', (b: Buffer) => b.subarray(0, 4).toString('latin1') === 'fLaC'],
  ])('speaks %s with its content type and real audio in it', async (format, type, magic) => {
    const res = await speech({
      model: 'tts-1',
      input: 'Hello from svc',
      voice: 'alloy',
      response_format: format,
    })
    expect(res.status).toBe(200)
    expect(res.headers.get('content-type')).toBe(type)
    const audio = Buffer.from(await res.arrayBuffer())
    expect(magic(audio)).toBe(true)
    expect(await duration(audio, format === 'opus' ? 'ogg' : format)).toBeGreaterThan(0.5)
  })

  it('speaks pcm as raw s16le mono 24 kHz', async () => {
    const res = await speech({ input: 'Hello from svc', voice: 'nova', response_format: 'pcm' })
    expect(res.headers.get('content-type')).toBe('audio/pcm')
    const pcm = Buffer.from(await res.arrayBuffer())
    expect(pcm.length % 2).toBe(0)
    expect(pcm.length / 2 / 24_000).toBeGreaterThan(0.5) // seconds
  })

  it('maps speed to words per minute', async () => {
    const length = async (speed: number) =>
      (
        await (
          await speech({
            input: 'one two three four five six',
            voice: 'en-us',
            speed,
            response_format: 'pcm',
          })
        ).arrayBuffer()
      ).byteLength
    const [slow, fast] = await Promise.all([length(0.5), length(2)])
    expect(slow).toBeGreaterThan(fast * 2)
  })

  it('accepts espeak-ng voices, variants and {id}, and speaks argv-looking text as text', async () => {
    for (const voice of ['en-gb', 'en-us+klatt', 'English_(America)', { id: 'fr-fr' }]) {
      const res = await speech({ input: 'Bonjour', voice, response_format: 'wav' })
      expect(res.status, JSON.stringify(voice)).toBe(200)
      await res.arrayBuffer()
    }
    // On stdin, not argv: this is spoken (a few seconds of audio), not run or parsed as flags.
    const res = await speech({
      input: '--version -w /tmp/x $(id) `id`; <speak>',
      voice: 'alloy',
      response_format: 'wav',
    })
    expect(res.status).toBe(200)
    expect(await duration(Buffer.from(await res.arrayBuffer()), 'wav')).toBeGreaterThan(1)
  })

  it.each([
    ['an unknown voice', { input: 'x', voice: 'no-such-voice' }, 'voice'],
    ['an unknown variant', { input: 'x', voice: 'en-us+nope' }, 'voice'],
    ['a speed above 4', { input: 'x', voice: 'alloy', speed: 9 }, 'speed'],
    ['an unknown format', { input: 'x', voice: 'alloy', response_format: 'ogg' }, 'response_format'],
    ['empty input', { input: '', voice: 'alloy' }, 'input'],
    ['input over 4096 characters', { input: 'x'.repeat(4097), voice: 'alloy' }, 'input'],
    ['SSE streaming', { input: 'x', voice: 'alloy', stream_format: 'sse' }, 'stream_format'],
  ])('refuses %s with an OpenAI 400 naming %s', async (_what, body, param) => {
    const res = await speech(body)
    expect(res.status).toBe(400)
    expect(await res.json()).toMatchObject({
      error: { type: 'invalid_request_error', param, message: expect.any(String) },
    })
  })

  it('refuses bodies that are not JSON, too large, or the wrong method', async () => {
    expect((await speech('{nope')).status).toBe(400)
    expect((await speech({ input: 'x', voice: 'alloy', pad: 'y'.repeat(70_000) })).status).toBe(413)
    expect((await fetch(url('/v1/audio/speech'))).status).toBe(405)
    expect((await fetch(url('/nope'))).status).toBe(404)
  })

  it('kills espeak-ng and ffmpeg when the client goes away mid-stream', async () => {
    const pid = Number(handle.describe().pid)
    const ac = new AbortController()
    const res = await speech(
      { input: 'A long sentence that takes a while to say. '.repeat(90), voice: 'alloy', speed: 0.25 },
      ac.signal,
    )
    const reader = res.body!.getReader()
    await reader.read() // audio is flowing
    expect(children(pid).length).toBeGreaterThan(0)
    ac.abort()
    const deadline = Date.now() + 5_000
    while (children(pid).length > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50))
    expect(children(pid)).toEqual([])
  })
})

describe.skipIf(!available)('the espeak-ng speech server under a burst', () => {
  let dir: string
  let handle: UpstreamHandle

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'svc-tts-'))
    handle = await startSpeechServer(dir, ['--max-concurrent', '1', '--max-queue', '1'])
  })
  afterAll(async () => {
    await handle?.stop(5_000)
    if (dir) await rm(dir, { recursive: true, force: true })
  })

  it('runs a bounded number of syntheses, queues a few, and answers the rest 503 with Retry-After', async () => {
    const input = 'The quick brown fox jumps over the lazy dog. '.repeat(80)
    const replies = await Promise.all(
      Array.from({ length: 6 }, () =>
        fetch(new URL('/v1/audio/speech', handle.base), {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ model: 'tts-1', input, voice: 'alloy', response_format: 'mp3' }),
        }).then(async (res) => ({ res, body: Buffer.from(await res.arrayBuffer()) })),
      ),
    )
    const ok = replies.filter((r) => r.res.status === 200)
    const busy = replies.filter((r) => r.res.status === 503)
    expect(ok.length + busy.length).toBe(6)
    expect(ok.length).toBeGreaterThanOrEqual(2) // one running, one queued
    expect(busy.length).toBeGreaterThanOrEqual(1)
    for (const { res, body } of busy) {
      expect(res.headers.get('retry-after')).toBe('1')
      expect(JSON.parse(body.toString()).error).toMatchObject({ type: 'server_error', code: 'busy' })
    }
    // The slots are given back: a request after the burst is served.
    const after = await fetch(new URL('/v1/audio/speech', handle.base), {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'tts-1', input: 'done', voice: 'alloy', response_format: 'wav' }),
    })
    expect(after.status).toBe(200)
    await after.arrayBuffer()
  }, 60_000)
})
