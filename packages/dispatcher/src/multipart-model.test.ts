import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { MAX_MODEL_BYTES, MultipartModelScanner, multipartBoundary } from './multipart-model'

const B = 'form-boundary-1234'

function part(headers: string, body: string | Buffer): Buffer {
  return Buffer.concat([Buffer.from(`--${B}\r\n${headers}\r\n\r\n`), Buffer.from(body), Buffer.from('\r\n')])
}
const end = Buffer.from(`--${B}--\r\n`)
const modelPart = (value = 'stt') => part('Content-Disposition: form-data; name="model"', value)
const filePart = (data: string | Buffer) =>
  part('Content-Disposition: form-data; name="file"; filename="a.wav"\r\nContent-Type: audio/wav', data)

/** Feeds `body` in chunks of `size` bytes; the model, or the error thrown. */
function scan(body: Buffer, size = body.length): string | Error {
  const scanner = new MultipartModelScanner(B)
  try {
    for (let i = 0; i < body.length; i += size) {
      const model = scanner.push(body.subarray(i, i + size))
      if (model !== undefined) return model
    }
    return scanner.end()
  } catch (error) {
    return error as Error
  }
}

describe('MultipartModelScanner', () => {
  it('finds model before the file, after it, and in any chunking down to single bytes', () => {
    const before = Buffer.concat([modelPart(), filePart('RIFF....'), end])
    const after = Buffer.concat([filePart(Buffer.alloc(100_000, 7)), modelPart('whisper-base.en'), end])
    for (const size of [1, 2, 3, 7, 64, 65_536]) {
      expect(scan(before, size)).toBe('stt')
      expect(scan(after, size)).toBe('whisper-base.en')
    }
  })

  it('reads a preamble, an unquoted name, padding after the delimiter and a part without headers', () => {
    const body = Buffer.concat([
      Buffer.from('this is a preamble\r\n'),
      Buffer.from(`--${B}  \r\n\r\nno headers here\r\n`),
      part('content-disposition: form-data; name=model', '  qwen3  '),
      end,
    ])
    expect(scan(body, 5)).toBe('qwen3')
  })

  it('does not take a file called "model", or name="model" text inside a file, for the field', () => {
    const body = Buffer.concat([
      part('Content-Disposition: form-data; name="file"; filename="model"', 'x'),
      filePart('Content-Disposition: form-data; name="model"\r\n\r\nfake\r\n'),
      modelPart('real'),
      end,
    ])
    expect(scan(body, 11)).toBe('real')
  })

  it('refuses a body without model, an empty model and one that is too long, naming param model', () => {
    expect(scan(Buffer.concat([filePart('x'), end]))).toMatchObject({
      code: 'request.invalid',
      param: 'model',
      message: expect.stringContaining('model is required'),
    })
    expect(scan(Buffer.concat([modelPart('  '), end]))).toMatchObject({ param: 'model' })
    expect(scan(Buffer.concat([modelPart('m'.repeat(MAX_MODEL_BYTES + 1)), end]))).toMatchObject({
      param: 'model',
      message: expect.stringContaining('too long'),
    })
    // A model value that never ends is refused once it is too long, not read to the end.
    const endless = new MultipartModelScanner(B)
    endless.push(Buffer.from(`--${B}\r\nContent-Disposition: form-data; name="model"\r\n\r\n`))
    expect(() => endless.push(Buffer.alloc(4096, 0x61))).toThrow(/too long/)
  })

  it('refuses endless part headers early (a hostile body of name="model" lines)', () => {
    const line = 'Content-Disposition: form-data; name="model"\r\n'
    const scanner = new MultipartModelScanner(B)
    const hostile = Buffer.from(`--${B}\r\n${line.repeat(50_000)}`)
    let error: unknown
    let fed = 0
    try {
      for (let i = 0; i < hostile.length; i += 65_536) {
        fed += 65_536
        scanner.push(hostile.subarray(i, i + 65_536))
      }
    } catch (e) {
      error = e
    }
    expect(error).toMatchObject({ code: 'request.invalid', param: 'file' })
    expect(fed).toBeLessThanOrEqual(65_536) // given up within the first chunk: 16 KiB of headers at most
  })

  it('keeps every chunk it was fed, for sending on', () => {
    const body = Buffer.concat([modelPart(), filePart('abc'), end])
    const scanner = new MultipartModelScanner(B)
    const first = body.subarray(0, 30)
    const second = body.subarray(30, 100)
    expect(scanner.push(first)).toBeUndefined()
    expect(scanner.push(second)).toBe('stt')
    expect(Buffer.concat(scanner.chunks)).toEqual(body.subarray(0, 100))
    expect(scanner.bytes).toBe(100)
  })
})

describe('MultipartModelScanner (property-based)', () => {
  it('finds the first model field whatever the parts and however the body is cut', () => {
    const content = fc.uint8Array({ maxLength: 300 }).map((b) => Buffer.from(b).toString('latin1'))
    const field = fc.record({
      name: fc.constantFrom('model', 'file', 'language', 'models', 'x"model'),
      value: fc.oneof(content, fc.constantFrom('stt', ' whisper ', 'name="model"\r\n', '\r\n\r\n')),
    })
    fc.assert(
      fc.property(fc.array(field, { maxLength: 6 }), fc.integer({ min: 1, max: 200 }), (fields, size) => {
        const body = Buffer.concat([
          ...fields.map((f) =>
            Buffer.concat([
              Buffer.from(`--${B}\r\nContent-Disposition: form-data; name="${f.name}"\r\n\r\n`),
              Buffer.from(f.value, 'latin1'),
              Buffer.from('\r\n'),
            ]),
          ),
          end,
        ])
        const first = fields.find((f) => f.name === 'model')
        const value = first && Buffer.from(first.value, 'latin1').toString('utf8').trim()
        const result = scan(body, size)
        if (!value || /[\r\n]/.test(value)) expect(result).toMatchObject({ param: 'model' })
        else expect(result).toBe(value)
      }),
      { numRuns: 500 },
    )
  })
})

describe('multipartBoundary', () => {
  it('reads quoted and plain boundaries and refuses what is not multipart/form-data', () => {
    expect(multipartBoundary(`multipart/form-data; boundary=${B}`)).toBe(B)
    expect(multipartBoundary('multipart/form-data; charset=utf-8; boundary="a b;c"')).toBe('a b;c')
    expect(multipartBoundary('multipart/form-data; boundary=')).toBeUndefined()
    expect(multipartBoundary(`multipart/form-data; boundary=${'x'.repeat(71)}`)).toBeUndefined()
    expect(multipartBoundary('application/json; boundary=x')).toBeUndefined()
  })
})
