import { describe, expect, it } from 'vitest'
import { crc32, encodePng, PyFloat, parsePyJson, readPngInfo, renderImage, toPyJson } from '../src/index'

describe('Python-valued JSON', () => {
  it('keeps ints of any size exact and floats as floats', () => {
    const v = parsePyJson(
      '{"a": 18446744073709551615, "b": 8.0, "c": 20, "d": "123456789012345678901", "e": -1e3}',
    )
    expect(v).toEqual({
      a: 18446744073709551615n,
      b: new PyFloat(8),
      c: 20,
      d: '123456789012345678901',
      e: new PyFloat(-1000),
    })
  })

  it('writes what json.dumps writes', () => {
    expect(toPyJson({ a: 18446744073709551615n, b: new PyFloat(150), c: [1, 'é', null], d: undefined })).toBe(
      '{"a": 18446744073709551615, "b": 150.0, "c": [1, "\\u00e9", null]}',
    )
    expect(toPyJson([new PyFloat(1e16), new PyFloat(0.00001), new PyFloat(0.1)])).toBe('[1e+16, 1e-05, 0.1]')
  })

  it('survives strings that look like numbers and escaped quotes', () => {
    expect(parsePyJson('["1\\"2", "-3", 4]')).toEqual(['1"2', '-3', 4])
    expect(() => parsePyJson('{not json')).toThrow(SyntaxError)
  })
})

describe('PNG', () => {
  it('computes the standard CRC-32', () => {
    expect(crc32(Buffer.from('123456789'))).toBe(0xcbf43926)
  })

  it('encodes an RGB image that reads back with its size and text', () => {
    const png = encodePng(renderImage(18446744073709551615n, 0, 24, 16), {
      text: { prompt: '{"a": 1}', u: 'ünï' },
    })
    expect(readPngInfo(png)).toEqual({
      width: 24,
      height: 16,
      bitDepth: 8,
      colorType: 2,
      text: { prompt: '{"a": 1}', u: 'ünï' },
    })
  })

  it('refuses a corrupted chunk', () => {
    const png = encodePng(renderImage(1n, 0, 8, 8))
    png[20] = png[20]! ^ 0xff // inside IHDR
    expect(() => readPngInfo(png)).toThrow(/bad CRC/)
  })

  it('renders the same pixels for the same seed and index only', () => {
    const px = (seed: bigint, index: number) => Buffer.from(renderImage(seed, index, 32, 32).scanlines)
    expect(px(2n ** 64n - 1n, 0).equals(px(2n ** 64n - 1n, 0))).toBe(true)
    expect(px(2n ** 64n - 1n, 0).equals(px(2n ** 64n - 2n, 0))).toBe(false)
    expect(px(5n, 0).equals(px(5n, 1))).toBe(false)
  })
})
