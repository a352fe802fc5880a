import { describe, expect, it } from 'vitest'
import { bodySizeLimit, refuseMethod, toSvcError } from './edge-errors'
import { SvcError } from './errors'
import { readMultipartForm } from './multipart-form'

/** What a web framework throws for a bad request (Hono's HTTPException has this shape). */
class HttpStatusError extends Error {
  constructor(
    readonly status: number,
    message = '',
  ) {
    super(message)
  }
}

/** The SvcError `act` throws. */
function thrownBy(act: () => unknown): SvcError {
  try {
    act()
  } catch (error) {
    return error as SvcError
  }
  throw new Error('nothing was thrown')
}

describe('toSvcError', () => {
  it('keeps an SvcError as it is', () => {
    const error = new SvcError('slot.not_found', 'no slot x')
    expect(toSvcError(error)).toBe(error)
  })

  it.each([
    [new HttpStatusError(413), 'request.too_large', 'request body is larger than allowed'],
    [
      new HttpStatusError(400, 'Malformed JSON in request body'),
      'request.invalid',
      'Malformed JSON in request body',
    ],
    [new HttpStatusError(400), 'request.invalid', 'malformed request'],
    [new HttpStatusError(500, 'boom'), 'internal.error', 'internal error'],
    [new TypeError('x is undefined'), 'internal.error', 'internal error'],
    [{ status: 400, message: 'not an Error' }, 'internal.error', 'internal error'],
  ])('turns %o into %s', (thrown, code, message) => {
    const svc = toSvcError(thrown)
    expect({ code: svc.code, message: svc.message }).toEqual({ code, message })
  })
})

describe('the edge refusals', () => {
  it('answers a wrong method with 405 and Allow', () => {
    const error = thrownBy(() => refuseMethod(undefined, ['GET', 'POST']))
    expect({ status: error.status, allow: error.headers.Allow, message: error.message }).toEqual({
      status: 405,
      allow: 'GET, POST',
      message: 'method not allowed; use GET, POST',
    })
  })

  it('refuses a body past the limit with 413 and the message given, or the limit in bytes', () => {
    const refusal = (limit: ReturnType<typeof bodySizeLimit>) => thrownBy(limit.onError)
    expect(bodySizeLimit(1024).maxSize).toBe(1024)
    expect(refusal(bodySizeLimit(1024))).toMatchObject({
      code: 'request.too_large',
      status: 413,
      message: 'request body is larger than 1024 bytes',
    })
    expect(refusal(bodySizeLimit(1024, 'a sample may be at most 1 KiB')).message).toBe(
      'a sample may be at most 1 KiB',
    )
  })
})

describe('readMultipartForm', () => {
  const refusal = { message: 'upload it as multipart', unreadable: 'unreadable body', param: 'file' }

  it('reads the fields and files of a multipart body', async () => {
    const form = new FormData()
    form.set('name', 'alice')
    form.set('file', new File([new Uint8Array([1, 2, 3])], 'a.wav'))
    const read = await readMultipartForm(new Request('http://x/', { method: 'POST', body: form }), refusal)
    expect(read.get('name')).toBe('alice')
    expect((read.get('file') as File).size).toBe(3)
  })

  it.each([
    ['another content type', 'application/json', '{}', 'upload it as multipart'],
    ['a body that does not parse', 'multipart/form-data; boundary=b', 'not multipart', 'unreadable body'],
  ])('refuses %s with 400 naming the field', async (_name, contentType, body, message) => {
    const request = new Request('http://x/', {
      method: 'POST',
      headers: { 'content-type': contentType },
      body,
    })
    await expect(readMultipartForm(request, refusal)).rejects.toMatchObject({
      code: 'request.invalid',
      param: 'file',
      message,
    })
  })
})
