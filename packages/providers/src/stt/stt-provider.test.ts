import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { describe, expect, it } from 'vitest'
import { hostSlotContext } from '../../test/slot-context'
import { createSttProvider, WHISPER_INFERENCE_PATH, whisperServerArgs } from './stt-provider'

const base = hostSlotContext(
  { id: 'whisper-base.en', format: 'whisper', provider: 'stt', source: 'catalogue' },
  { modelPath: '/state/models/whisper-base.en/ggml-base.en.bin' },
)

describe('whisper-server argv', () => {
  it('loads the model, binds host and port, and serves the OpenAI path', () => {
    expect(whisperServerArgs(base).slice(0, 8)).toEqual([
      '-m',
      '/state/models/whisper-base.en/ggml-base.en.bin',
      '--host',
      '127.0.0.1',
      '--port',
      '4321',
      '--inference-path',
      '/v1/audio/transcriptions',
    ])
  })

  it('converts uploads with ffmpeg into a temp dir and detects the language', () => {
    const argv = whisperServerArgs(base, { hostTmpDir: '/tmp/svc' })
    expect(argv.slice(8)).toEqual(['--convert', '--tmp-dir', '/tmp/svc', '--language', 'auto'])
  })

  it('uses /tmp inside a container', () => {
    const argv = whisperServerArgs({
      ...base,
      runtime: 'container',
      host: '0.0.0.0',
      modelPath: '/models/m.bin',
    })
    expect(argv.join(' ')).toContain('--tmp-dir /tmp')
    expect(argv.join(' ')).toContain('--host 0.0.0.0')
  })

  it('appends slot args last, and a flag given there replaces svc’s (short or long spelling)', () => {
    const argv = whisperServerArgs({ ...base, args: ['-l', 'de', '-t', '1'] })
    expect(argv).not.toContain('auto')
    expect(argv.slice(-4)).toEqual(['-l', 'de', '-t', '1'])
    expect(
      whisperServerArgs({ ...base, args: ['--tmp-dir', '/x'] }).filter((a) => a === '--tmp-dir'),
    ).toHaveLength(1)
  })
})

describe('the stt provider', () => {
  const stt = createSttProvider()

  it('runs whisper-server for transcriptions and translations, and only for them', () => {
    expect(stt.kind).toBe('stt')
    expect(stt.endpoints).toEqual(['transcriptions', 'translations'])
    expect(stt.startCommand(base)[0]).toBe('whisper-server')
    expect(stt.buildEnv(base)).toEqual({})
    expect(stt.requestPath('transcriptions')).toBe(WHISPER_INFERENCE_PATH)
    expect(stt.requestPath('translations')).toBe(WHISPER_INFERENCE_PATH)
    expect(stt.multipartFields?.('translations')).toEqual({ translate: 'true' })
    expect(stt.multipartFields?.('transcriptions')).toBeUndefined()
    expect(() => stt.requestPath('chat')).toThrow(/does not serve chat/)
  })

  it('refuses models that are not whisper.cpp ggml files', () => {
    expect(stt.refuseModel?.(base.model)).toBeUndefined()
    expect(stt.refuseModel?.({ id: 'qwen', format: 'gguf', provider: 'llm', source: 'local' })).toMatch(
      /whisper\.cpp ggml models.*"qwen" is a gguf model/,
    )
  })

  it('runs the whisper-cpu image on cpu and has none for other backends', () => {
    expect(stt.image?.('cpu')).toBe('whisper-cpu')
    expect(stt.image?.('vulkan')).toBeUndefined()
  })

  it('is healthy on 200 from /health, not on 503 while a model loads, nor when nothing listens', async () => {
    let status = 503
    const server = createServer((req, res) => {
      res.writeHead(req.url === '/health' ? status : 404, { 'content-type': 'application/json' })
      res.end(status === 200 ? '{"status":"ok"}' : '{"status":"loading model"}')
    })
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
    try {
      const url = new URL(`http://127.0.0.1:${(server.address() as AddressInfo).port}`)
      expect(await stt.healthProbe(url, AbortSignal.timeout(2_000))).toBe(false)
      status = 200
      expect(await stt.healthProbe(url, AbortSignal.timeout(2_000))).toBe(true)
    } finally {
      await new Promise((r) => server.close(r))
    }
    expect(await stt.healthProbe(new URL('http://127.0.0.1:1'), AbortSignal.timeout(2_000))).toBe(false)
  })
})
