/**
 * FastFlowLM answers most failures with HTTP 200 and `{"error": …}`, and with a
 * `null` body when its speech or embedding model is not loaded. Through svc a client gets a proper
 * error (the NPU normaliser), not a generic 502 — nor a 200 with `null`. Against the FLM stand-in
 * (FastFlowLM cannot run here), reached by remote npu slots.
 */
import { mkdir, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { type FlmStandIn, startFlmStandIn } from '@svc/testing'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type AuthServer, send, startAuthServer } from './auth-harness'

describe('FastFlowLM error replies through svc', () => {
  let flm: FlmStandIn
  let server: AuthServer
  beforeAll(async () => {
    // Started without --asr and --embed: their models are not loaded (FLM then answers `null`).
    flm = await startFlmStandIn({ tag: 'qwen3:0.6b' })
    server = await startAuthServer({ SVC_AUTH_ENABLED: '0' }, async ({ configDir }) => {
      await mkdir(join(configDir, 'slots'), { recursive: true })
      for (const name of ['npu-chat', 'npu-embed', 'npu-stt']) {
        await writeFile(
          join(configDir, 'slots', `${name}.toml`),
          `provider = "npu"\nruntime = "remote"\nurl = "${flm.url}"\n${name === 'npu-embed' ? 'role = "embed"\n' : ''}`,
        )
      }
    })
    for (const [slot, model] of [
      ['npu-chat', 'flm-qwen3-0.6b'],
      ['npu-embed', 'flm-embed-gemma-300m'],
      ['npu-stt', 'flm-whisper-v3-turbo'],
    ] as const) {
      const load = await send(server.url, {
        method: 'POST',
        path: `/api/slots/${slot}/load?wait=true`,
        body: JSON.stringify({ model }),
      })
      expect(load.status, load.text).toBe(200)
    }
  }, 60_000)
  afterAll(async () => {
    await server?.[Symbol.asyncDispose]()
    await flm?.stop()
  })

  it('turns a 200 with null (embedding model not loaded) into a 502 that says so', async () => {
    const reply = await send(server.url, {
      method: 'POST',
      path: '/v1/embeddings',
      body: JSON.stringify({ model: 'npu-embed', input: 'hello' }),
    })
    expect(reply.status, reply.text).toBe(502)
    expect(JSON.parse(reply.text).error).toMatchObject({
      code: 'upstream.error',
      message: expect.stringMatching(/not loaded/),
    })
  })

  it('turns a 200 with {"error": …} (a request FLM refuses) into a 400 with its message', async () => {
    const boundary = 'svcboundary'
    const body = `--${boundary}\r\nContent-Disposition: form-data; name="model"\r\n\r\nnpu-stt\r\n--${boundary}--\r\n`
    const reply = await send(server.url, {
      method: 'POST',
      path: '/v1/audio/transcriptions',
      headers: { 'content-type': `multipart/form-data; boundary=${boundary}` },
      body,
    })
    expect(reply.status, reply.text).toBe(502) // speech model not loaded either: null → 502
    // With ASR loaded FLM reads the body and refuses the missing file with a 200 + error.
    flm.state.asr = true
    const refused = await send(server.url, {
      method: 'POST',
      path: '/v1/audio/transcriptions',
      headers: { 'content-type': `multipart/form-data; boundary=${boundary}` },
      body,
    })
    expect(refused.status, refused.text).toBe(400)
    expect(JSON.parse(refused.text).error).toMatchObject({
      code: 'upstream.error',
      type: 'invalid_request_error',
      message: 'FastFlowLM: Missing file',
    })
  })

  it('leaves a real success alone', async () => {
    const reply = await send(server.url, {
      method: 'POST',
      path: '/v1/chat/completions',
      body: JSON.stringify({ model: 'npu-chat', messages: [{ role: 'user', content: 'hi' }] }),
    })
    expect(reply.status, reply.text).toBe(200)
    expect(JSON.parse(reply.text).choices).toHaveLength(1)
  })
})
