import { request } from 'node:http'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type DispatchHarness, post, startDispatchHarness } from '../test/dispatch-harness'

/** A chunked POST (no Content-Length) of `chunks`, read back as status and JSON. */
function chunked(
  url: string,
  chunks: string[],
): Promise<{ status: number; body: { error?: { code: string } } }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: 'POST', headers: { 'content-type': 'application/json' } }, (res) => {
      let text = ''
      res.on('data', (c: Buffer) => {
        text += c.toString('utf8')
      })
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(text) }))
    })
    req.on('error', reject)
    for (const c of chunks) req.write(c)
    req.end()
  })
}

describe('the dispatcher reads request bodies', () => {
  let h: DispatchHarness
  beforeAll(async () => {
    h = await startDispatchHarness({ maxJsonBytes: 1024 })
  })
  afterAll(async () => {
    await h[Symbol.asyncDispose]()
  })

  const code = async (res: Response) => ({ status: res.status, ...(await res.json()).error })

  it('refuses what is not a JSON object with 400 request.invalid', async () => {
    expect(await code(await post(h, '/v1/chat/completions', '{"model":'))).toMatchObject({
      status: 400,
      code: 'request.invalid',
      message: 'request body is not valid JSON',
    })
    expect(await code(await post(h, '/v1/chat/completions', '[1,2]'))).toMatchObject({
      status: 400,
      message: 'request body must be a JSON object',
    })
    const text = await post(h, '/v1/chat/completions', '{"model":"primary"}', {
      headers: { 'content-type': 'text/plain' },
    })
    expect((await code(text)).message).toContain('expected a JSON body')
  })

  it('names the first field that does not validate in param', async () => {
    const res = await post(h, '/v1/chat/completions', { model: 'primary', messages: 'hi' })
    expect(await code(res)).toMatchObject({ status: 400, code: 'request.invalid', param: 'messages' })
  })

  it('answers 413 for a body over the limit, declared or streamed', async () => {
    const big = JSON.stringify({ model: 'primary', messages: [{ role: 'user', content: 'x'.repeat(2000) }] })
    expect(await code(await post(h, '/v1/chat/completions', big))).toMatchObject({
      status: 413,
      code: 'request.too_large',
    })
    const streamed = await chunked(`${h.url}/v1/chat/completions`, [big.slice(0, 900), big.slice(900)])
    expect(streamed).toMatchObject({ status: 413, body: { error: { code: 'request.too_large' } } })
    // The next request is served as usual.
    const next = { model: 'primary', messages: [{ role: 'user', content: 'hi' }] }
    expect((await post(h, '/v1/chat/completions', next)).status).toBe(200)
  })

  it('answers 405 with Allow: POST for another method, and reads nothing of it', async () => {
    const res = await fetch(`${h.url}/v1/chat/completions`)
    expect(res.status).toBe(405)
    expect(res.headers.get('allow')).toBe('POST')
    expect((await res.json()).error.code).toBe('method.not_allowed')
  })

  it('sends the upstream exactly the bytes the client sent when model needs no rewrite', async () => {
    const raw = '{ "model" : "primary", "messages":[{"role":"user","content":"é"}], "x": 1.0 }'
    const before = h.seen.length
    expect((await post(h, '/v1/chat/completions', raw)).status).toBe(200)
    expect(h.seen[before]!.body).toBe(raw)
  })
})
