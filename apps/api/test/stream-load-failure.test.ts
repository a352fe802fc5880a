/**
 * A streamed request whose model fails to load after svc already answered 200 with the event-stream
 * head (the loading notices of packages/dispatcher/src/loading-notice.ts): the stream must end with
 * one `event: error` carrying svc's error body, which the official `openai` client raises as an
 * error, never a cut connection or a silent end. Real llama-server, a slot that loads on request,
 * and a registered ref whose GGUF is cut in half on disk (its header parses, its tensors do not).
 */
import { copyFile, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { type ApiProcess, startApiWithConfig, writeTinyGguf } from '@svc/testing'
import { APIError } from 'openai'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { openaiClient, streamChat } from './chat-requests'
import { call, type ErrorBody, llamaServerAvailable, loadOk, type SlotBody, waitForSlot } from './live'

const available = llamaServerAvailable()
const ARGS = ['-c', '256', '-np', '1', '--threads', '1']

/** The SSE events of a body: `event` (default `message`) and `data`, comment lines apart. */
function eventsOf(text: string): { event: string; data: string }[] {
  return text
    .split('\n\n')
    .filter((block) => block.split('\n').some((line) => line.startsWith('data:')))
    .map((block) => {
      const lines = block.split('\n')
      const event =
        lines
          .find((l) => l.startsWith('event:'))
          ?.slice(6)
          .trim() ?? 'message'
      const data = lines
        .filter((l) => l.startsWith('data:'))
        .map((l) => l.slice(5).trim())
        .join('\n')
      return { event, data }
    })
}

describe.skipIf(!available)('a streamed request whose load fails after the SSE head was sent', () => {
  let dir: string
  let api: ApiProcess
  const broken = 'tiny-broken'

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'svc-stream-fail-'))
    const good = await writeTinyGguf(join(dir, 'tiny-good.gguf'), { role: 'chat' })
    await copyFile(good.path, join(dir, `${broken}.gguf`))
    api = await startApiWithConfig({
      slots: { primary: `args = ${JSON.stringify(ARGS)}\nrestart = "no"\n` },
    })
    // Loading each file once registers its ref; then the second file is cut in half on disk.
    await loadOk(api, 'primary', join(dir, `${broken}.gguf`))
    await loadOk(api, 'primary', good.path)
    const bytes = await readFile(join(dir, `${broken}.gguf`))
    await writeFile(join(dir, `${broken}.gguf`), bytes.subarray(0, Math.floor(bytes.length / 2)))
    const put = await call(api, '/api/slots/primary', {
      method: 'PUT',
      json: { args: ARGS, restart: 'no', load_on_request: true, max_loaded: 1 },
    })
    expect(put.status).toBe(200)
  }, 90_000)
  afterAll(async () => {
    await api?.[Symbol.asyncDispose]()
    await rm(dir, { recursive: true, force: true })
  })

  it('ends the stream with an `error` event holding the error body (raw fetch)', async () => {
    const res = await streamChat(api, { model: broken, max_tokens: 2 })
    // The head went out while the model was loading: the status can no longer say it failed.
    expect(res.status).toBe(200)
    expect(res.headers.get('content-type')).toMatch(/text\/event-stream/)
    const text = await res.text()
    expect(text).toMatch(new RegExp(`^: loading ${broken}…`, 'm'))
    const events = eventsOf(text)
    expect(events.map((e) => e.event)).toEqual(['error'])
    const body = JSON.parse(events[0]!.data) as ErrorBody
    expect(Object.keys(body.error).sort()).toEqual(['code', 'message', 'param', 'type'])
    expect(body.error.code).toBe('upstream.unavailable')
    expect(body.error.message).toMatch(/exited/)
    expect(body.error.message.length).toBeGreaterThan(0)
    expect(text).not.toContain('[DONE]')
    // The failure is the slot's too: it says why, and the next request for a good model works.
    const slot = await waitForSlot(api, 'primary', (s) => s.state !== 'starting' && s.state !== 'warming')
    expect(slot.model).not.toBe(broken)
  }, 60_000)

  it('raises the error body through the official openai client', async () => {
    const client = openaiClient(api)
    const stream = await client.chat.completions.create({
      model: broken,
      messages: [{ role: 'user', content: 'hi' }],
      max_tokens: 2,
      stream: true,
    })
    const chunks: unknown[] = []
    const failure = await (async () => {
      for await (const chunk of stream) chunks.push(chunk)
    })().then(
      () => undefined,
      (error: unknown) => error,
    )
    expect(chunks).toEqual([])
    expect(failure).toBeInstanceOf(APIError)
    const error = failure as APIError
    expect(error.message.length).toBeGreaterThan(0)
    expect((error.error as ErrorBody['error'] | undefined)?.code).toMatch(/^[a-z]+\.[a-z_]+$/)
    const slot = (await call<SlotBody>(api, '/api/slots/primary')).body
    expect(slot.model).not.toBe(broken)
  }, 60_000)
})
