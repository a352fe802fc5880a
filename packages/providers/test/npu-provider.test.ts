import type { ModelEntry } from '@svc/core'
import { startFlmStandIn } from '@svc/testing'
import { describe, expect, it } from 'vitest'
import type { SlotContext } from '../src/contract'
import { normaliseFlmBody, normaliseFlmResponse } from '../src/npu/flm-errors'
import { flmModelId, npuModelEntries } from '../src/npu/flm-models'
import { createNpuProvider } from '../src/npu/npu-provider'
import { hostSlotContext } from './slot-context'

const npu = createNpuProvider()
const entry = (id: string, format = 'npu'): ModelEntry => ({
  id,
  format,
  provider: 'npu',
  source: 'catalogue',
})
const ctx = (id: string, extra: Partial<SlotContext> = {}) =>
  hostSlotContext(entry(id), { slot: 'primary', backend: 'npu', port: 52625, ...extra })
const post = (url: string, body: unknown) =>
  fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) })

describe('the NPU provider (FastFlowLM)', () => {
  it('starts one flm serve with speech recognition and embeddings on, preloading only a chat tag', () => {
    // One server for every model: what follows `serve` [tag] is the same for all.
    const serveFlags = ['--host', '127.0.0.1', '--port', '52625', '--asr', '1', '--embed', '1', '--quiet']
    expect(npu.startCommand(ctx('flm-qwen3-4b', { ctxSize: 8192 }))).toEqual([
      'flm',
      'serve',
      'qwen3:4b',
      ...serveFlags,
      '--ctx-len',
      '8192',
    ])
    expect(npu.startCommand(ctx('flm-whisper-v3-turbo'))).toEqual(['flm', 'serve', ...serveFlags])
    expect(npu.buildEnv(ctx('flm-qwen3-4b'))).toEqual({ FLM_DISABLE_UPDATE_CHECK: '1' })
    expect(npu.image?.('npu')).toBe('flm-npu')
    expect(npu.requestPath('transcriptions')).toBe('/v1/audio/transcriptions')
    expect(() => npu.requestPath('rerank')).toThrow(/does not serve rerank/)
  })

  it('has its own model namespace and refuses a GGUF with a clear reason', () => {
    const ids = npuModelEntries().map((m) => m.id)
    expect(ids).toEqual(
      expect.arrayContaining(['flm-qwen3-4b', 'flm-whisper-v3-turbo', 'flm-embed-gemma-300m']),
    )
    for (const id of ids) expect(id).toMatch(/^[a-z0-9][a-z0-9._-]{0,127}$/) // valid registry ids
    expect(npu.refuseModel?.(entry('flm-qwen3-4b'))).toBeUndefined()
    expect(npu.refuseModel?.(entry('qwen3-0.6b-q8_0', 'gguf'))).toMatch(
      /^the NPU runs FastFlowLM models \(e\.g\. flm-qwen3-4b\), not gguf files: "qwen3-0\.6b-q8_0" is a gguf model/,
    )
    expect(npu.refuseModel?.(entry('flm-nope-9b'))).toContain("is not in FastFlowLM's model list")
    expect(npu.upstreamModel?.({ model: entry('flm-embed-gemma-300m') })).toBe('embed-gemma:300m')
  })

  it('is healthy once /api/tags answers', async () => {
    await using flm = await startFlmStandIn({ tag: 'qwen3:4b' })
    expect(await npu.healthProbe(new URL(flm.url), AbortSignal.timeout(2000))).toBe(true)
    await flm.stop()
    expect(await npu.healthProbe(new URL(flm.url), AbortSignal.timeout(2000))).toBe(false)
  })

  it('keeps the loaded model when model is rewritten to the started tag (FLM swaps otherwise)', async () => {
    await using flm = await startFlmStandIn({ tag: 'qwen3:4b', asr: true, embed: true })
    const chat = `${flm.url}${npu.requestPath('chat')}`
    const messages = [{ role: 'user', content: 'hi' }]
    const primary = npu.upstreamModel?.({ model: entry('flm-qwen3-4b') })
    const embed = npu.upstreamModel?.({ model: entry('flm-embed-gemma-300m') })
    expect((await post(chat, { model: primary, messages })).status).toBe(200)
    const emb = await post(`${flm.url}${npu.requestPath('embeddings')}`, { model: embed, input: 'x' })
    expect(normaliseFlmBody(emb.status, await emb.json())).toBeUndefined()
    expect(flm.state.switches).toEqual([])
    // What a client would send without the rewrite: FLM would swap its LLM (slow, and wrong for others).
    await post(chat, { model: 'llama3.2:1b', messages })
    expect(flm.state.switches).toEqual(['llama3.2:1b'])
  })
})

describe('normaliseFlmBody on what FLM really answers', () => {
  it('turns 200-with-error, null bodies and queue-full replies into svc errors', async () => {
    await using flm = await startFlmStandIn({ tag: 'qwen3:4b', ctxLen: 512, qLen: 0, jobDelayMs: 0 })
    await using bare = await startFlmStandIn({ tag: 'qwen3:4b' })
    const chat = `${bare.url}/v1/chat/completions`

    const unknown = await post(chat, { model: 'nope:1b', messages: [{ role: 'user', content: 'x' }] })
    expect(normaliseFlmBody(unknown.status, await unknown.json())).toEqual({
      status: 400,
      headers: {},
      body: {
        error: {
          code: 'upstream.error',
          message: 'FastFlowLM: Model not found: nope:1b',
          type: 'invalid_request_error',
          param: null,
        },
      },
    })
    const none = await post(`${bare.url}/v1/embeddings`, { input: 'x' })
    expect(normaliseFlmBody(none.status, await none.json())).toMatchObject({
      status: 502,
      body: { error: { code: 'upstream.error', message: expect.stringContaining('not loaded') } },
    })
    const invalid = await fetch(chat, { method: 'POST', body: '{' })
    expect(normaliseFlmBody(invalid.status, await invalid.json())).toMatchObject({
      status: 400,
      body: { error: { code: 'request.invalid' } },
    })
    const long = await post(`${bare.url}/v1/chat/completions`, {
      model: 'qwen3:4b',
      messages: [{ role: 'user', content: 'x'.repeat(20_000) }],
    })
    expect(normaliseFlmBody(long.status, await long.json())).toMatchObject({
      status: 400,
      body: { error: { code: 'upstream.error', message: 'FastFlowLM: Max length reached!' } },
    })
    const busy = await post(`${flm.url}/v1/chat/completions`, { model: 'qwen3:4b', messages: [] })
    expect(normaliseFlmBody(busy.status, await busy.json())).toMatchObject({
      status: 503,
      headers: { 'Retry-After': '1' },
      body: { error: { code: 'slot.unavailable' } },
    })
    const notFound = await fetch(`${bare.url}/v1/models?x=1`)
    expect(normaliseFlmBody(notFound.status, await notFound.json())?.status).toBe(502)
  })

  it('normalises JSON responses and passes streams through untouched', async () => {
    await using flm = await startFlmStandIn({ tag: 'qwen3:4b' })
    const chat = `${flm.url}/v1/chat/completions`
    const bad = await normaliseFlmResponse(await post(chat, { model: 'qwen3:4b' }))
    expect(bad.status).toBe(400)
    expect(await bad.json()).toMatchObject({ error: { message: 'FastFlowLM: messages is required' } })
    const good = await normaliseFlmResponse(
      await post(chat, { model: 'qwen3:4b', messages: [{ role: 'user', content: 'x' }] }),
    )
    expect(good.status).toBe(200)
    expect(await good.json()).toMatchObject({ object: 'chat.completion' })
    const stream = await normaliseFlmResponse(
      await post(chat, { model: 'qwen3:4b', stream: true, messages: [{ role: 'user', content: 'x' }] }),
    )
    expect(await stream.text()).toMatch(/data: \[DONE\]\n\n$/)
    expect(flmModelId('gpt-oss:20b')).toBe('flm-gpt-oss-20b')
  })
})
