import { existsSync } from 'node:fs'
import type { ModelEntry } from '@svc/core'
import { describe, expect, it } from 'vitest'
import type { SlotContext } from '../contract'
import {
  createTtsProvider,
  ESPEAK_SPEECH_SERVER,
  KOKORO_ENTRYPOINT,
  ttsCommand,
  ttsEngineFor,
} from './tts-provider'

const espeak: ModelEntry = {
  id: 'espeak-ng',
  format: 'builtin',
  provider: 'tts',
  source: 'catalogue',
  family: 'espeak-ng',
}
const kokoro: ModelEntry = {
  id: 'kokoro-82m',
  format: 'builtin',
  provider: 'tts',
  source: 'catalogue',
  family: 'kokoro',
}

const host: SlotContext = {
  slot: 'tts',
  model: espeak,
  modelPath: 'espeak-ng',
  backend: 'cpu',
  runtime: 'process',
  host: '127.0.0.1',
  port: 4321,
  args: [],
}
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
      /"x" is neither/,
    )
  })

  it('rewrites model to a name Kokoro accepts, and leaves it for espeak-ng', () => {
    expect(tts.upstreamModel?.({ model: kokoro })).toBe('kokoro')
    expect(tts.upstreamModel?.({ model: espeak })).toBeUndefined()
  })
})
