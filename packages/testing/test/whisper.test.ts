import { type ChildProcess, spawn } from 'node:child_process'
import { mkdtemp, rm } from 'node:fs/promises'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { findEngine } from '@svc/engines'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { toneWav } from '../bin/tone-wav.cjs'
import {
  buildTinyWhisper,
  melFilters,
  missingPart,
  WHISPER_FFT_BINS,
  WHISPER_TEXT_TOKENS,
  WHISPER_VOCAB_EN,
  WHISPER_VOCAB_MULTILINGUAL,
  whisperTextTokens,
  writeTinyWhisper,
} from '../src/index'

/** Reads back what whisper_model_load reads: hparams, filters, vocab, then the tensor headers. */
function readWhisper(bytes: Buffer) {
  let at = 0
  const i32 = () => {
    const v = bytes.readInt32LE(at)
    at += 4
    return v
  }
  const magic = bytes.readUInt32LE(0)
  at = 4
  const hparams = Array.from({ length: 11 }, i32)
  const [nMel, nFft] = [i32(), i32()]
  at += nMel * nFft * 4
  const nTokens = i32()
  const tokens: string[] = []
  for (let i = 0; i < nTokens; i++) {
    const len = i32()
    tokens.push(bytes.toString('utf8', at, at + len))
    at += len
  }
  const tensors: { name: string; dims: number[] }[] = []
  while (at < bytes.length) {
    const [nDims, nameLen, type] = [i32(), i32(), i32()]
    expect(type).toBe(0)
    const dims = Array.from({ length: nDims }, i32)
    const name = bytes.toString('utf8', at, at + nameLen)
    at += nameLen + dims.reduce((a, b) => a * b, 1) * 4
    tensors.push({ name, dims })
  }
  expect(at).toBe(bytes.length)
  return { magic, hparams, nMel, nFft, tokens, tensors }
}

describe('buildTinyWhisper', () => {
  it('writes the legacy ggml layout whisper.cpp reads, with every tensor it expects', () => {
    const { bytes, info } = buildTinyWhisper({ nAudioLayer: 2, nTextLayer: 1 })
    const file = readWhisper(bytes)
    expect(file.magic).toBe(0x67676d6c)
    // n_vocab, n_audio_ctx, n_audio_state, n_audio_head, n_audio_layer, n_text_ctx, n_text_state,
    // n_text_head, n_text_layer, n_mels, ftype
    expect(file.hparams).toEqual([WHISPER_VOCAB_EN, 1500, 32, 4, 2, 64, 32, 4, 1, 80, 0])
    expect([file.nMel, file.nFft]).toEqual([80, WHISPER_FFT_BINS])
    expect(file.tokens).toHaveLength(WHISPER_TEXT_TOKENS)
    expect(file.tokens[220]).toBe(' ')
    // 7 encoder + 15 per encoder block + 4 decoder + 24 per decoder block
    expect(file.tensors).toHaveLength(7 + 15 * 2 + 4 + 24)
    const dims = Object.fromEntries(file.tensors.map((t) => [t.name, t.dims]))
    expect(dims['encoder.conv1.weight']).toEqual([3, 80, 32])
    expect(dims['encoder.conv1.bias']).toEqual([1, 32])
    expect(dims['decoder.token_embedding.weight']).toEqual([32, WHISPER_VOCAB_EN])
    expect(dims['decoder.blocks.0.cross_attn.key.weight']).toEqual([32, 32])
    expect(dims['encoder.blocks.1.mlp.0.weight']).toEqual([32, 128])
    expect(info).toMatchObject({
      nVocab: WHISPER_VOCAB_EN,
      nState: 32,
      multilingual: false,
      bytes: bytes.length,
    })
  })

  it('is deterministic per seed and multilingual on request', () => {
    expect(buildTinyWhisper({ seed: 3 }).bytes.equals(buildTinyWhisper({ seed: 3 }).bytes)).toBe(true)
    expect(buildTinyWhisper({ seed: 3 }).bytes.equals(buildTinyWhisper({ seed: 4 }).bytes)).toBe(false)
    expect(readWhisper(buildTinyWhisper({ multilingual: true }).bytes).hparams[0]).toBe(
      WHISPER_VOCAB_MULTILINGUAL,
    )
    expect(() => buildTinyWhisper({ nState: 30, nHead: 4 })).toThrow(/divisible/)
  })

  it('has distinct stand-in tokens and triangular mel filters', () => {
    const tokens = whisperTextTokens()
    expect(new Set(tokens).size).toBe(tokens.length)
    const filters = melFilters()
    expect(filters).toHaveLength(80 * WHISPER_FFT_BINS)
    expect(Math.max(...filters)).toBeLessThanOrEqual(1)
    for (let m = 0; m < 80; m++)
      expect(filters.subarray(m * WHISPER_FFT_BINS, (m + 1) * WHISPER_FFT_BINS).some((x) => x > 0)).toBe(true)
  })
})

const whisperServer = findEngine('whisper-server', process.env)?.path
if (!whisperServer) missingPart('whisper-server', 'run ./scripts/setup.sh (svc engines build whisper-server)')

describe.skipIf(!whisperServer)('the real whisper-server with a tiny model', () => {
  let dir: string
  let child: ChildProcess
  let url: string
  let output = ''

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'svc-whisper-'))
    const model = await writeTinyWhisper(join(dir, 'tiny.bin'))
    const port = await new Promise<number>((resolve) => {
      const probe = createServer().listen(0, '127.0.0.1', () => {
        const p = (probe.address() as { port: number }).port
        probe.close(() => resolve(p))
      })
    })
    url = `http://127.0.0.1:${port}`
    child = spawn(
      whisperServer!,
      ['-m', model.path, '--host', '127.0.0.1', '--port', String(port), '-t', '1'],
      {
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    )
    child.stdout?.on('data', (d: Buffer) => {
      output += d.toString()
    })
    child.stderr?.on('data', (d: Buffer) => {
      output += d.toString()
    })
    const deadline = Date.now() + 30_000
    while (Date.now() < deadline) {
      const ok = await fetch(`${url}/health`).then(
        (r) => r.ok,
        () => false,
      )
      if (ok) return
      if (child.exitCode !== null) break
      await new Promise((r) => setTimeout(r, 100))
    }
    throw new Error(`whisper-server did not become healthy:\n${output.slice(-3000)}`)
  })

  afterAll(async () => {
    if (child && child.exitCode === null) {
      const exited = new Promise((r) => child.once('exit', r))
      child.kill('SIGKILL')
      await exited
    }
    if (dir) await rm(dir, { recursive: true, force: true })
  })

  it('loads the model and transcribes a WAV into (gibberish) text', async () => {
    expect(output).toMatch(/n_vocab\s*=\s*51864/)
    const form = new FormData()
    form.append('file', new Blob([new Uint8Array(toneWav(16_000))], { type: 'audio/wav' }), 'tone.wav')
    const res = await fetch(`${url}/inference`, { method: 'POST', body: form })
    expect(res.status).toBe(200)
    const body = (await res.json()) as { text: unknown }
    expect(typeof body.text).toBe('string')
  })
})
