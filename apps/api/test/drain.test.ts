/**
 * An unload waits for in-flight requests (leases) up to the grace period, then stops the
 * upstream anyway. The upstream is the fake one behind the third-party echo provider, so that a
 * request can be made to last exactly as long as the test needs.
 */
import { fileURLToPath } from 'node:url'
import { startApi } from '@svc/testing'
import { describe, expect, it } from 'vitest'
import { sendChat, streamChat } from './chat-requests'
import { call, loadEchoSlot, type SlotBody, waitForSlot } from './live'

const FIXTURE = fileURLToPath(new URL('./fixtures/echo-provider.ts', import.meta.url))

/** Each stream lasts `chunks` × 100 ms: long enough that the test's steps fit in it on a busy machine. */
async function echoApi(graceSeconds: string, chunks: number) {
  const api = await startApi({
    env: {
      SVC_PROVIDER_MODULES: FIXTURE,
      SVC_UNLOAD_GRACE: graceSeconds,
      ECHO_UPSTREAM_ARGS: `--stream-chunks ${chunks} --chunk-interval-ms 100`,
    },
  })
  await loadEchoSlot(api)
  return api
}

/** Starts a stream and resolves once its first event arrived, with the rest as text. */
async function slowStream(url: string) {
  const res = await streamChat({ url }, { model: 'echo' })
  const reader = res.body!.getReader()
  const first = await reader.read()
  const rest = (async () => {
    let text = new TextDecoder().decode(first.value)
    for (;;) {
      const { done, value } = await reader.read().catch(() => ({ done: true, value: undefined }))
      if (done) return text
      text += new TextDecoder().decode(value)
    }
  })()
  return { status: res.status, rest }
}

describe('unload with a request in flight', () => {
  it('waits for the lease to be released, then unloads', async () => {
    await using api = await echoApi('30', 50)
    const stream = await slowStream(api.url)
    expect(stream.status).toBe(200)
    const unload = await call<SlotBody>(api, '/api/slots/echo/unload', { method: 'POST' })
    expect(unload.status).toBe(202)
    const unloading = await waitForSlot(api, 'echo', (s) => s.state !== 'serving')
    expect(unloading).toMatchObject({ state: 'unloading', inflight: 1 })
    // New requests are refused while it unloads.
    const late = await sendChat(api, { model: 'echo', content: 'x' })
    expect(late.status).toBe(409)
    const text = await stream.rest
    expect(text.trim().endsWith('data: [DONE]')).toBe(true)
    await waitForSlot(api, 'echo', (s) => s.state === 'offline')
  }, 30_000)

  it('stops the upstream after the grace period; the stream ends with an error event', async () => {
    await using api = await echoApi('0.5', 200) // a 20-second stream
    const stream = await slowStream(api.url)
    const t0 = Date.now()
    await call(api, '/api/slots/echo/unload?wait=true', { method: 'POST' })
    const took = Date.now() - t0
    // It waited the grace, and did not wait for the stream's end.
    expect(took).toBeGreaterThanOrEqual(400)
    expect(took).toBeLessThan(12_000)
    const text = await stream.rest
    expect(text).not.toContain('[DONE]')
    expect(text).toContain('"code":"upstream.unavailable"')
  }, 30_000)
})
