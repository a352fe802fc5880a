import type { IncomingMessage } from 'node:http'
import { Readable } from 'node:stream'
import { SvcError } from '@svc/core'
import { describe, expect, it } from 'vitest'
import { prependFields } from './multipart-fields'
import { keepTail, readWholeUpload } from './whole-upload'

const BOUNDARY = 'svc-test-boundary'
const CONTENT_TYPE = `multipart/form-data; boundary=${BOUNDARY}`

function multipart(fields: Record<string, string>): Buffer {
  const parts = Object.entries(fields).map(([name, value]) =>
    name === 'file'
      ? `--${BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="a.wav"\r\nContent-Type: audio/wav\r\n\r\n${value}\r\n`
      : `--${BOUNDARY}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`,
  )
  return Buffer.from(`${parts.join('')}--${BOUNDARY}--\r\n`)
}

/** The body as read-request.ts leaves it: the first `headBytes` already read, the rest still in `req`. */
function streamed(data: Buffer, headBytes: number, maxRestBytes = 1 << 20) {
  const req = Object.assign(Readable.from([data.subarray(headBytes)]), {
    headers: { 'content-type': CONTENT_TYPE },
  }) as unknown as IncomingMessage
  const body = {
    kind: 'stream' as const,
    head: [data.subarray(0, headBytes)],
    rest: req,
    maxRestBytes,
    limit: 1 << 20,
  }
  return { body, req }
}

describe('readWholeUpload', () => {
  it('reads the whole upload and parses its fields when it has a stream field', async () => {
    const data = multipart({ model: 'stt', file: 'RIFFdata', stream: 'true' })
    const { body, req } = streamed(data, 40)
    const upload = await readWholeUpload(body, req)
    expect(upload.body).toEqual({ kind: 'buffer', data })
    expect(upload.fields?.model).toBe('stt')
    expect(upload.fields?.stream).toBe('true')
    const file = upload.fields?.file
    expect(file).toBeInstanceOf(Blob)
    expect(await (file as Blob).text()).toBe('RIFFdata')
  })

  it('does not parse an upload without a stream field', async () => {
    const data = multipart({ model: 'stt', file: 'RIFFdata' })
    const { body, req } = streamed(data, 10)
    expect(await readWholeUpload(body, req)).toEqual({ body: { kind: 'buffer', data }, fields: undefined })
  })

  it('refuses an upload over its cap with 413', async () => {
    const data = multipart({ model: 'stt', file: 'x'.repeat(1000), stream: 'true' })
    const { body, req } = streamed(data, 10, 100)
    const error = await readWholeUpload(body, req).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(SvcError)
    expect(error).toMatchObject({ code: 'request.too_large' })
  })

  it('puts provider fields in front of a whole upload too', () => {
    const data = multipart({ model: 'stt' })
    const out = prependFields({ kind: 'buffer', data }, { translate: 'true' }, CONTENT_TYPE)
    if (out.kind !== 'buffer') throw new Error('not a buffer')
    expect(out.data.toString()).toBe(
      `--${BOUNDARY}\r\nContent-Disposition: form-data; name="translate"\r\n\r\ntrue\r\n${data.toString()}`,
    )
  })
})

describe('keepTail', () => {
  it('passes the body through and keeps its last bytes', async () => {
    const long = `${'x'.repeat(10_000)}{"usage":{"type":"duration","seconds":2.5}}`
    const { response, text } = keepTail(new Response(long, { status: 201 }))
    expect(response.status).toBe(201)
    expect(await response.text()).toBe(long)
    expect(text().endsWith('"seconds":2.5}}')).toBe(true)
    expect(text().length).toBe(4096)
  })
})
