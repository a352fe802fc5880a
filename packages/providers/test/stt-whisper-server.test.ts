/**
 * The stt provider's argv against the real whisper-server (built by `svc engines build whisper-server`)
 * with a tiny random-weight model, launched by the real process runtime.
 */
import { execFile } from 'node:child_process'
import { mkdir, mkdtemp, readdir, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import type { ModelEntry, UpstreamHandle } from '@svc/core'
import { findEngine } from '@svc/engines'
import { missingPart, writeTinyWhisper } from '@svc/testing'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createProcessRuntime } from '../src/runtimes/process'
import { createSttProvider } from '../src/stt/stt-provider'

const exec = promisify(execFile)
const available = Boolean(findEngine('whisper-server', process.env))
if (!available) missingPart('whisper-server', 'run ./scripts/setup.sh (svc engines build whisper-server)')

describe.skipIf(!available)('whisper-server as the stt provider runs it', () => {
  let dir: string
  let convertDir: string
  let handle: UpstreamHandle
  let wav: Buffer
  let ogg: Buffer

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'svc-stt-'))
    convertDir = join(dir, 'convert')
    await mkdir(convertDir)
    const tiny = await writeTinyWhisper(join(dir, 'tiny.bin'))
    const model: ModelEntry = {
      id: 'tiny',
      format: 'whisper',
      provider: 'stt',
      source: 'local',
      path: tiny.path,
    }
    // A second of speech-like noise: a chirp, as WAV and as Ogg/Opus (only --convert decodes the latter).
    const tone = ['-f', 'lavfi', '-i', 'sine=frequency=300:beep_factor=4:duration=1']
    await exec('ffmpeg', ['-loglevel', 'error', ...tone, '-ar', '16000', join(dir, 'a.wav')])
    await exec('ffmpeg', ['-loglevel', 'error', ...tone, '-c:a', 'libopus', join(dir, 'a.ogg')])
    ;[wav, ogg] = await Promise.all([readFile(join(dir, 'a.wav')), readFile(join(dir, 'a.ogg'))])
    const runtime = createProcessRuntime({ stateDir: dir, env: process.env })
    handle = await runtime.start({
      slot: 'stt',
      provider: createSttProvider({ hostTmpDir: convertDir }),
      model,
      backend: 'cpu',
      args: ['-t', '1'],
      signal: AbortSignal.timeout(60_000),
    })
    const deadline = Date.now() + 60_000
    while (!(await createSttProvider().healthProbe(handle.base, AbortSignal.timeout(2_000)))) {
      if (Date.now() > deadline) throw new Error(`not healthy:\n${handle.logs().join('\n')}`)
      await new Promise((r) => setTimeout(r, 100))
    }
  }, 90_000)

  afterAll(async () => {
    await handle?.stop(5_000)
    if (dir) await rm(dir, { recursive: true, force: true })
  })

  const transcribe = (audio: Buffer, name: string, fields: Record<string, string> = {}) => {
    const form = new FormData()
    form.append('file', new Blob([new Uint8Array(audio)]), name)
    form.append('model', 'whisper-1')
    for (const [k, v] of Object.entries(fields)) form.append(k, v)
    return fetch(new URL('/v1/audio/transcriptions', handle.base), { method: 'POST', body: form })
  }

  it('answers the OpenAI path with {text}', async () => {
    const res = await transcribe(wav, 'a.wav')
    expect(res.status).toBe(200)
    expect(typeof ((await res.json()) as { text: unknown }).text).toBe('string')
  })

  it('decodes formats miniaudio cannot (Ogg/Opus) through ffmpeg, in the temp dir svc gave it', async () => {
    const res = await transcribe(ogg, 'a.ogg')
    expect(res.status).toBe(200)
    expect(typeof ((await res.json()) as { text: unknown }).text).toBe('string')
    expect(await readdir(convertDir)).toEqual([]) // converted files are removed again
  })

  it('answers text as text/html (its quirk) and verbose_json with segments', async () => {
    const text = await transcribe(wav, 'a.wav', { response_format: 'text' })
    expect(text.headers.get('content-type')).toMatch(/^text\/html/)
    const verbose = (await (
      await transcribe(wav, 'a.wav', { response_format: 'verbose_json' })
    ).json()) as Record<string, unknown>
    expect(verbose).toMatchObject({ task: 'transcribe', language: 'english', text: expect.any(String) })
    expect(verbose.duration).toBeCloseTo(1, 1)
    expect(Array.isArray(verbose.segments)).toBe(true)
  })

  // whisper-server's docs say {"error": …}; the server's error handler replaces every 400 body with plain
  // text, which the dispatcher normalises like any other upstream error.
  it('refuses a request without a file with 400 "Invalid request" (plain text)', async () => {
    const form = new FormData()
    form.append('model', 'whisper-1')
    const res = await fetch(new URL('/v1/audio/transcriptions', handle.base), { method: 'POST', body: form })
    expect(res.status).toBe(400)
    expect(await res.text()).toBe('Invalid request')
  })
})
