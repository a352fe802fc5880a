import { existsSync } from 'node:fs'
import { startChatterboxStandIn } from '@svc/testing'
import { describe, expect, it } from 'vitest'
import { hostSlotContext } from '../../test/slot-context'
import { ttsModel } from '../../test/tts-models'
import type { SlotContext } from '../contract'
import {
  createTtsProvider,
  ESPEAK_SPEECH_SERVER,
  KOKORO_ENTRYPOINT,
  ttsCommand,
  ttsEngineFor,
  ttsHealthy,
} from './tts-provider'

const espeak = ttsModel('espeak-ng')
const kokoro = ttsModel('kokoro')
const chatterbox = ttsModel('chatterbox', { extraCapabilities: ['voice_cloning'] })

const host = hostSlotContext(espeak)
const container: SlotContext = {
  ...host,
  model: kokoro,
  modelPath: 'kokoro-82m',
  runtime: 'container',
  host: '0.0.0.0',
  port: 8880,
}

describe('the tts provider', () => {
  const tts = createTtsProvider({ node: '/usr/bin/node' })

  it('runs svc’s espeak-ng speech server with this Node on the host, slot args last', () => {
    expect(existsSync(ESPEAK_SPEECH_SERVER)).toBe(true)
    expect(tts.startCommand({ ...host, args: ['--ffmpeg', '/opt/ffmpeg'] })).toEqual([
      '/usr/bin/node',
      ESPEAK_SPEECH_SERVER,
      '--host',
      '127.0.0.1',
      '--port',
      '4321',
      '--ffmpeg',
      '/opt/ffmpeg',
    ])
    expect(tts.buildEnv(host)).toEqual({})
    expect(ttsCommand(host)[0]).toBe(process.execPath)
  })

  it('runs Kokoro-FastAPI’s entrypoint in a container, without re-downloading the baked-in model', () => {
    expect(tts.startCommand(container)).toEqual([KOKORO_ENTRYPOINT])
    expect(tts.buildEnv(container)).toEqual({ DOWNLOAD_MODEL: 'false' })
    expect(tts.image?.('cpu')).toBe('kokoro-cpu')
    expect(tts.image?.('rocm')).toBeUndefined()
  })

  it('refuses to start a model where its engine cannot run, saying what to change', () => {
    expect(() => tts.startCommand({ ...host, model: kokoro })).toThrow(/runtime = "container"/)
    expect(() => tts.startCommand({ ...container, model: espeak })).toThrow(/runtime = "process"/)
  })

  it('serves speech at the OpenAI path and only speech', () => {
    expect(tts.kind).toBe('tts')
    expect(tts.endpoints).toEqual(['speech'])
    expect(tts.requestPath('speech')).toBe('/v1/audio/speech')
    expect(() => tts.requestPath('transcriptions')).toThrow()
  })

  it('knows its two models and refuses others', () => {
    expect(ttsEngineFor(espeak)).toBe('espeak-ng')
    expect(ttsEngineFor(kokoro)).toBe('kokoro')
    expect(ttsEngineFor({ id: 'kokoro-82m' })).toBe('kokoro')
    expect(tts.refuseModel?.(espeak)).toBeUndefined()
    expect(tts.refuseModel?.({ id: 'x', format: 'gguf', provider: 'llm', source: 'local' })).toMatch(
      /"x" is none of them/,
    )
  })

  it('rewrites model to a name Kokoro accepts, and leaves it for espeak-ng', () => {
    expect(tts.upstreamModel?.({ model: kokoro })).toBe('kokoro')
    expect(tts.upstreamModel?.({ model: espeak })).toBeUndefined()
  })

  it('runs Chatterbox’s image as its Dockerfile does, configured by env, on CPU or CUDA', () => {
    const ctx = { ...container, model: chatterbox, modelPath: 'chatterbox', port: 8080 }
    expect(tts.startCommand(ctx)).toEqual(['python', 'main.py'])
    expect(tts.buildEnv(ctx)).toEqual({
      PORT: '8080',
      HOST: '0.0.0.0',
      DEVICE: 'cpu',
      MODEL_CACHE_DIR: '/cache',
      HF_HOME: '/cache/huggingface',
      VOICE_LIBRARY_DIR: '/voices',
    })
    expect(tts.buildEnv({ ...ctx, backend: 'cuda' }).DEVICE).toBe('cuda')
    expect(tts.image?.('cpu', chatterbox)).toBe('chatterbox-cpu')
    expect(tts.image?.('cuda', chatterbox)).toBe('chatterbox-cuda')
    expect(tts.image?.('cuda', kokoro)).toBeUndefined()
    expect(tts.image?.('cpu', espeak)).toBeUndefined()
  })

  it('puts each model where it runs, so that a swap is an ordinary load', () => {
    expect(tts.runtimeFor?.(espeak)).toBe('process')
    expect(tts.runtimeFor?.(kokoro)).toBe('container')
    expect(tts.runtimeFor?.(chatterbox)).toBe('container')
    expect(tts.runtimeFor?.({ id: 'x', format: 'gguf', provider: 'llm', source: 'local' })).toBeUndefined()
  })

  it('is ready only when the engine says so: Chatterbox initializing is not, healthy is', async () => {
    await using warming = await startChatterboxStandIn({ STANDIN_INIT_MS: '60000' })
    expect(await ttsHealthy(new URL(warming.url), AbortSignal.timeout(2_000))).toBe(false)
    await using ready = await startChatterboxStandIn()
    expect(await ttsHealthy(new URL(ready.url), AbortSignal.timeout(2_000))).toBe(true)
    expect(await ttsHealthy(new URL('http://127.0.0.1:9'), AbortSignal.timeout(2_000))).toBe(false)
  })

  it('takes over speech only to stream it (several sentences, SSE): a short text is relayed as it came', async () => {
    const applies = (body: Record<string, unknown>) =>
      tts.translate?.appliesTo?.({ endpoint: 'speech', model: espeak, body: { voice: 'alloy', ...body } })
    expect(tts.translate?.endpoints).toEqual(['speech'])
    expect(await applies({ input: 'Hello from svc.' })).toBe(false)
    expect(await applies({ input: 'Hello from svc.', stream_format: 'sse' })).toBe(true)
    expect(await applies({ input: 'This is the first sentence. And this is the second one.' })).toBe(true)
  })
})
