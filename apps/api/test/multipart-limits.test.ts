/**
 * An upload's `model` field is found in linear time, and the 25 MB cap holds for
 * the whole upload — also for a chunked one without Content-Length. Against a real API process and
 * the fake upstream (a real process speaking HTTP) behind a third-party provider.
 */

import { request } from 'node:http'
import { fileURLToPath } from 'node:url'
import { type ApiProcess, startApi } from '@svc/testing'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { loadEchoSlot } from './live'

const FIXTURE = fileURLToPath(new URL('./fixtures/echo-provider.ts', import.meta.url))
const B = 'svc-test-boundary'
const MB = 1024 * 1024

const head = (name: string, extra = '') =>
  Buffer.from(`--${B}\r\nContent-Disposition: form-data; name="${name}"${extra}\r\n\r\n`)
const modelField = Buffer.concat([head('model'), Buffer.from('echo\r\n')])
const fileHead = head('file', '; filename="notes.txt"')
const closing = Buffer.from(`--${B}--\r\n`)

interface Answer {
  status: number
  body: string
}

/** POSTs a multipart body as chunks (Transfer-Encoding: chunked) until svc answers or it is sent. */
function postChunked(api: ApiProcess, chunks: Iterable<Buffer>, headers: Record<string, string> = {}) {
  return new Promise<Answer>((resolve, reject) => {
    const req = request(`${api.url}/v1/audio/transcriptions`, {
      method: 'POST',
      headers: { 'content-type': `multipart/form-data; boundary=${B}`, ...headers },
    })
    let answered = false
    req.on('response', (res) => {
      answered = true
      let body = ''
      res.setEncoding('utf8')
      res.on('data', (d: string) => {
        body += d
      })
      res.on('end', () => {
        resolve({ status: res.statusCode ?? 0, body })
        req.destroy()
      })
    })
    req.on('error', (error) => {
      if (!answered) reject(error)
    })
    const it = chunks[Symbol.iterator]()
    const pump = () => {
      while (!answered) {
        const next = it.next()
        if (next.done) return void req.end()
        if (!req.write(next.value)) return void req.once('drain', pump)
      }
    }
    pump()
  })
}

function* upload(fileBytes: number, modelFirst = true, chunk = MB): Generator<Buffer> {
  if (modelFirst) yield modelField
  yield fileHead
  for (let sent = 0; sent < fileBytes; sent += chunk) yield Buffer.alloc(Math.min(chunk, fileBytes - sent), 7)
  yield Buffer.from('\r\n')
  if (!modelFirst) yield modelField
  yield closing
}

describe('multipart uploads through svc', () => {
  let api: ApiProcess

  beforeAll(async () => {
    api = await startApi({ env: { SVC_PROVIDER_MODULES: FIXTURE } })
    await loadEchoSlot(api)
  }, 60_000)

  afterAll(async () => {
    await api?.[Symbol.asyncDispose]()
  })

  it('streams an upload under the limit through, chunked', async () => {
    const r = await postChunked(api, upload(3 * MB))
    expect(r.status).toBe(200)
    expect(JSON.parse(r.body).text).toMatch(/^\d+ bytes$/)
  })

  it('answers 413 to a chunked upload that passes 25 MB after the model field', async () => {
    const r = await postChunked(api, upload(40 * MB))
    expect(r.status).toBe(413)
    expect(JSON.parse(r.body)).toMatchObject({ error: { code: 'request.too_large' } })
    // Also while still looking for the model field (it comes after the file).
    const late = await postChunked(api, upload(40 * MB, false))
    expect(late.status).toBe(413)
    // The upstream and svc are fine afterwards.
    expect((await postChunked(api, upload(MB))).status).toBe(200)
  }, 60_000)

  it('answers 413 at once when Content-Length says more than 25 MB', async () => {
    const r = await postChunked(api, [modelField], { 'content-length': String(26 * MB) })
    expect(r.status).toBe(413)
  })

  it('finds a model field after a file full of name="model" lines as fast as after a plain file', async () => {
    const size = 2 * MB
    const text = (line: string) => Buffer.from(line.repeat(Math.ceil(size / line.length)).slice(0, size))
    const body = (file: Buffer) => Buffer.concat([fileHead, file, Buffer.from('\r\n'), modelField, closing])
    const plain = body(text('just some text in a file\r\n'))
    const hostile = body(text('Content-Disposition: form-data; name="model"\r\n'))
    const timed = async (b: Buffer) => {
      const t0 = performance.now()
      const res = await fetch(`${api.url}/v1/audio/transcriptions`, {
        method: 'POST',
        headers: { 'content-type': `multipart/form-data; boundary=${B}` },
        body: new Uint8Array(b),
      })
      expect(res.status).toBe(200)
      await res.arrayBuffer()
      return performance.now() - t0
    }
    // Interleaved rounds, best of each: the two must cost about the same (a ratio in one run, not a
    // time). A scan that rescans per candidate spends seconds of event loop on the hostile one.
    const plainMs: number[] = []
    const hostileMs: number[] = []
    for (let i = 0; i < 3; i++) {
      plainMs.push(await timed(plain))
      hostileMs.push(await timed(hostile))
    }
    expect(Math.min(...hostileMs)).toBeLessThan(Math.min(...plainMs) * 4 + 300)
  }, 60_000)
})
