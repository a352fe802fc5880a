import { SvcError } from '@svc/core'
import { describe, expect, it } from 'vitest'
import { stringifyJsonBig } from '../src/image/big-json'
import { exactSeeds, parseImageRequest } from '../src/image/image-request'

function refused(body: unknown): SvcError {
  try {
    parseImageRequest(body)
  } catch (error) {
    expect(error).toBeInstanceOf(SvcError)
    expect((error as SvcError).status).toBe(400)
    expect((error as SvcError).code).toBe('request.invalid')
    return error as SvcError
  }
  throw new Error('expected a refusal')
}

describe('parseImageRequest', () => {
  it('fills the defaults: n 1, native size, url', () => {
    expect(parseImageRequest({ prompt: 'a fox', model: 'sdxl-turbo' })).toEqual({
      prompt: 'a fox',
      n: 1,
      responseFormat: 'url',
    })
  })

  it('reads n, size and response_format, and ignores other OpenAI fields', () => {
    const job = parseImageRequest({
      prompt: 'a fox',
      n: 2,
      size: '512x768',
      response_format: 'b64_json',
      quality: 'hd',
      style: 'vivid',
      user: 'u1',
      output_format: 'webp',
      background: 'transparent',
      moderation: 'low',
    })
    expect(job).toEqual({
      prompt: 'a fox',
      n: 2,
      size: { width: 512, height: 768 },
      responseFormat: 'b64_json',
    })
    expect(parseImageRequest({ prompt: 'x', size: 'auto', n: null }).size).toBeUndefined()
  })

  it.each([
    [{}, 'prompt'],
    [{ prompt: '  ' }, 'prompt'],
    [{ prompt: 7 }, 'prompt'],
    [{ prompt: 'x', n: 0 }, 'n'],
    [{ prompt: 'x', n: 9 }, 'n'],
    [{ prompt: 'x', n: 1.5 }, 'n'],
    [{ prompt: 'x', n: '2' }, 'n'],
    [{ prompt: 'x', size: '500x512' }, 'size'],
    [{ prompt: 'x', size: '32x32' }, 'size'],
    [{ prompt: 'x', size: '4096x4096' }, 'size'],
    [{ prompt: 'x', size: '512' }, 'size'],
    [{ prompt: 'x', size: '512x512px' }, 'size'],
    [{ prompt: 'x', response_format: 'png' }, 'response_format'],
    [{ prompt: 'x', seed: -1 }, 'seed'],
    [{ prompt: 'x', seed: 1.5 }, 'seed'],
    [{ prompt: 'x', seed: '18446744073709551616' }, 'seed'],
    [{ prompt: 'x', seed: '0x10' }, 'seed'],
    [{ prompt: 'x', seed: 2 ** 60 }, 'seed'],
    [{ prompt: 'x', extra_body: { seed: 'abc' } }, 'extra_body.seed'],
    [{ prompt: 'x', steps: 0 }, 'steps'],
    [{ prompt: 'x', cfg: 101 }, 'cfg'],
    [{ prompt: 'x', extra_body: { cfg: -1 } }, 'extra_body.cfg'],
    [{ prompt: 'x', negative_prompt: 3 }, 'negative_prompt'],
    [{ prompt: 'x', extra_body: 'seed=1' }, 'extra_body'],
  ])('refuses %j with param %s', (body, param) => {
    expect(refused(body).param).toBe(param)
  })

  it('explains why a big seed must be a string', () => {
    // what a plain JSON.parse makes of a Python client's `"seed": 18446744073709551615`
    const rounded = JSON.parse('{"prompt": "x", "seed": 18446744073709551615}')
    expect(rounded.seed).toBe(18446744073709552000)
    expect(refused(rounded).message).toMatch(/decimal string/)
  })

  it('takes seeds up to 2^64-1 exactly as a string, a bigint, or a safe number', () => {
    expect(parseImageRequest({ prompt: 'x', seed: '18446744073709551615' }).seed).toBe(18446744073709551615n)
    expect(parseImageRequest({ prompt: 'x', seed: 18446744073709551615n }).seed).toBe(18446744073709551615n)
    expect(parseImageRequest({ prompt: 'x', seed: 9007199254740991 }).seed).toBe(9007199254740991n)
    expect(parseImageRequest({ prompt: 'x', seed: 0 }).seed).toBe(0n)
    const raw = '{"prompt": "x", "seed": 18446744073709551615, "cfg": 1.5}'
    expect(parseImageRequest(exactSeeds(JSON.parse(raw), raw)).seed).toBe(18446744073709551615n)
  })

  it('reads the extensions at the top level and under extra_body', () => {
    const ext = { seed: 5, steps: 4, cfg: 2.5, negative_prompt: 'blurry' }
    const expected = { seed: 5n, steps: 4, cfg: 2.5, negativePrompt: 'blurry' }
    expect(parseImageRequest({ prompt: 'x', ...ext })).toMatchObject(expected)
    expect(parseImageRequest({ prompt: 'x', extra_body: ext })).toMatchObject(expected)
    // the same value in both places is fine; different values are a contradiction
    expect(parseImageRequest({ prompt: 'x', seed: 5, extra_body: { seed: 5 } }).seed).toBe(5n)
    expect(refused({ prompt: 'x', steps: 4, extra_body: { steps: 5 } }).param).toBe('extra_body.steps')
  })
})

describe('JSON with big integers', () => {
  const exact = (raw: string) => exactSeeds(JSON.parse(raw), raw)

  it('restores exact seeds at the top level and under extra_body, and leaves every other number alone', () => {
    const raw =
      '{"prompt": "x", "seed": 18446744073709551615, "a": 18446744073709551615, "b": 1.5e3, "d": "99999999999999999999", "extra_body": {"seed": 9007199254740993}}'
    expect(exact(raw)).toEqual({
      prompt: 'x',
      seed: 18446744073709551615n,
      a: 18446744073709552000,
      b: 1500,
      d: '99999999999999999999',
      extra_body: { seed: 9007199254740993n },
    })
    const safe = JSON.parse('{"prompt": "x", "seed": 5}')
    expect(exactSeeds(safe, 'not even read')).toBe(safe)
  })

  it('refuses a seed of ten million digits as out of range, with param, without converting it', () => {
    const raw = `{"prompt": "x", "extra_body": {"seed": ${'9'.repeat(10_000_000)}}}`
    expect(() => parseImageRequest(exact(raw))).toThrow(
      expect.objectContaining({
        code: 'request.invalid',
        param: 'extra_body.seed',
        message: 'seed must be an integer from 0 to 18446744073709551615',
      }),
    )
    expect(() => parseImageRequest(exact('{"prompt": "x", "seed": -123456789012345678901234}'))).toThrow(
      expect.objectContaining({ param: 'seed' }),
    )
  })

  it('writes a bigint as a bare integer', () => {
    expect(stringifyJsonBig({ seed: 18446744073709551615n, s: 'x' })).toBe(
      '{"seed":18446744073709551615,"s":"x"}',
    )
  })
})
