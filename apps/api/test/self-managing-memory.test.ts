/**
 * Loads on request under one memory budget shared by two modalities: a real llama-server (chat)
 * and a real whisper-server (speech to text), with a budget that fits one of them. A request for
 * the other model evicts the idle one; a busy one is never evicted (503 naming it); a pinned one is
 * never evicted either.
 */
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { findEngine } from '@svc/engines'
import { estimateLoad } from '@svc/providers/memory'
import {
  type ApiProcess,
  missingPart,
  startApiWithConfig,
  writeTinyGguf,
  writeTinyWhisper,
} from '@svc/testing'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { holdStream, sendChat } from './chat-requests'
import { call, type ErrorBody, llamaServerAvailable, loadOk, type SlotBody, waitForSlot } from './live'

const whisper = Boolean(findEngine('whisper-server', process.env))
if (!whisper) missingPart('whisper-server', 'run ./scripts/setup.sh (svc engines build whisper-server)')
const available = llamaServerAvailable() && whisper

const LLM = 'args = ["-np", "1", "--threads", "1"]\nrestart = "no"\nload_on_request = true\n'
const STT = 'args = ["-t", "1"]\nrestart = "no"\nload_on_request = true\n'

/** Half a second of silence: 16 kHz mono 16-bit PCM WAV. */
function silence(): Blob {
  const samples = 8_000
  const b = Buffer.alloc(44 + samples * 2)
  b.write('RIFF', 0)
  b.writeUInt32LE(36 + samples * 2, 4)
  b.write('WAVEfmt ', 8)
  b.writeUInt32LE(16, 16)
  b.writeUInt16LE(1, 20)
  b.writeUInt16LE(1, 22)
  b.writeUInt32LE(16_000, 24)
  b.writeUInt32LE(32_000, 28)
  b.writeUInt16LE(2, 32)
  b.writeUInt16LE(16, 34)
  b.write('data', 36)
  b.writeUInt32LE(samples * 2, 40)
  return new Blob([b], { type: 'audio/wav' })
}

async function transcribe(api: ApiProcess, model: string) {
  const form = new FormData()
  form.set('model', model)
  form.set('file', silence(), 'silence.wav')
  const res = await fetch(`${api.url}/v1/audio/transcriptions`, { method: 'POST', body: form })
  return { status: res.status, body: (await res.json()) as Partial<ErrorBody> & { text?: string } }
}

async function metric(api: ApiProcess, pattern: RegExp): Promise<number> {
  const text = String((await call<string>(api, '/api/metrics')).body)
  const line = text.split('\n').find((l) => pattern.test(l))
  return line ? Number(line.split(' ').at(-1)) : 0
}

describe.skipIf(!available)(
  'loads on request under one memory budget (llama-server and whisper-server)',
  () => {
    let dir: string
    let api: ApiProcess

    beforeAll(async () => {
      dir = await mkdtemp(join(tmpdir(), 'svc-self-memory-'))
      const llm = await writeTinyGguf(join(dir, 'tiny-chat.gguf'), { role: 'chat', contextLength: 32_768 })
      const stt = await writeTinyWhisper(join(dir, 'tiny-whisper.bin'))
      const [a, b] = await Promise.all([
        estimateLoad({
          model: { id: 'x', format: 'gguf', provider: 'llm', source: 'local', path: llm.path },
        }),
        estimateLoad({
          model: { id: 'y', format: 'whisper', provider: 'stt', source: 'local', path: stt.path },
        }),
      ])
      // Room for either model, never for both.
      const budgetGb = (Math.max(a.bytes, b.bytes) + Math.min(a.bytes, b.bytes) / 2) / 1024 ** 3
      api = await startApiWithConfig({
        slots: { primary: LLM, stt: STT },
        env: { SVC_MEMORY_BUDGET_GB: `ram=${budgetGb.toFixed(6)}` },
      })
      // Loading each file once registers its ref (tiny-whisper, tiny-chat).
      await loadOk(api, 'stt', stt.path)
      await call(api, '/api/slots/stt/unload', { method: 'POST' })
      await waitForSlot(api, 'stt', (s) => s.state === 'offline')
      await loadOk(api, 'primary', llm.path)
    }, 120_000)
    afterAll(async () => {
      await api?.[Symbol.asyncDispose]()
      await rm(dir, { recursive: true, force: true })
    })

    it('refuses with 503 naming the busy holder, and never evicts a slot with a request in flight', async () => {
      const stream = await holdStream(api, { model: 'tiny-chat', content: 'go on', max_tokens: 30_000 })
      try {
        const refused = await transcribe(api, 'tiny-whisper')
        expect(refused.status).toBe(503)
        expect(refused.body.error?.code).toBe('memory.insufficient')
        expect(refused.body.error?.message).toContain('held by slot "primary" (tiny-chat,')
        expect(refused.body.error?.message).toContain('1 request in flight')
        expect((await call<SlotBody>(api, '/api/slots/primary')).body.state).toBe('serving')
      } finally {
        await stream.stop()
      }
    }, 60_000)

    it('evicts the idle LLM for a transcription, least recently used first, and says why', async () => {
      await waitForSlot(api, 'primary', (s) => s.inflight === 0)
      const done = await transcribe(api, 'tiny-whisper')
      expect(done.status, JSON.stringify(done.body)).toBe(200)
      expect((await call<SlotBody>(api, '/api/slots/primary')).body.state).toBe('offline')
      expect(
        await metric(api, /^svc_slot_auto_total\{slot="primary",action="unload",reason="memory"\}/),
      ).toBe(1)
      expect(await metric(api, /^svc_slot_auto_total\{slot="stt",action="load",reason="request"\}/)).toBe(1)
    }, 60_000)

    it('never evicts a pinned slot: the other model is refused, naming it', async () => {
      const put = await call(api, '/api/slots/stt', {
        method: 'PUT',
        json: { args: ['-t', '1'], restart: 'no', load_on_request: true, pinned: true },
      })
      expect(put.status).toBe(200)
      const refused = await sendChat<ErrorBody>(api, { model: 'tiny-chat', max_tokens: 2 })
      expect(refused.status).toBe(503)
      expect(refused.body.error.message).toContain('held by slot "stt" (tiny-whisper,')
      expect((await call<SlotBody>(api, '/api/slots/stt')).body.model).toBe('tiny-whisper')
    }, 60_000)
  },
)
