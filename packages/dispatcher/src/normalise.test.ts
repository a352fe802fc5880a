import { SvcError } from '@svc/core'
import { describe, expect, it } from 'vitest'
import { looksLikeErrorBody, normaliseUpstreamError } from './normalise'

describe('upstream error normalisation', () => {
  it.each([
    [
      'llama-server JSON',
      400,
      '{"error":{"code":400,"message":"the request exceeds the available context size","type":"exceed_context_size_error"}}',
      'application/json',
      400,
      'request.invalid',
      'exceeds the available context size',
    ],
    [
      'whisper / FLM string error',
      500,
      '{"error":"failed to read audio"}',
      'application/json',
      502,
      'upstream.error',
      'failed to read audio',
    ],
    [
      'FastAPI detail string',
      404,
      '{"detail":"Model \'x\' is not installed locally."}',
      'application/json',
      404,
      'upstream.error',
      'is not installed locally',
    ],
    [
      'FastAPI validation list',
      422,
      '{"detail":[{"loc":["body","input"],"msg":"field required","type":"missing"}]}',
      'application/json',
      400,
      'request.invalid',
      'body.input: field required',
    ],
    [
      'Kokoro detail object',
      400,
      '{"detail":{"error":"invalid_model","message":"Unsupported model: x","type":"invalid_request_error"}}',
      'application/json',
      400,
      'request.invalid',
      'Unsupported model: x',
    ],
    [
      'plain text',
      500,
      'Internal Server Error',
      'text/plain',
      502,
      'upstream.error',
      'Internal Server Error',
    ],
    [
      'an HTML page',
      502,
      '<html><head><title>502 Bad Gateway</title></head><body><h1>Bad</h1></body></html>',
      'text/html',
      502,
      'upstream.error',
      '502 Bad Gateway',
    ],
    [
      'loading',
      503,
      '{"error":{"code":503,"message":"Loading model","type":"unavailable_error"}}',
      'application/json',
      503,
      'slot.unavailable',
      'Loading model',
    ],
  ])('%s', (_name, status, body, type, wantStatus, wantCode, wantMessage) => {
    const err = normaliseUpstreamError(status, body, type, 'primary')
    expect(err.status).toBe(wantStatus)
    expect(err.code).toBe(wantCode)
    expect(err.message).toContain(wantMessage)
    expect(err.message.startsWith('primary: ')).toBe(true)
    expect(err.toBody().error).toEqual({
      code: wantCode,
      message: err.message,
      type: expect.any(String),
      param: null,
    })
  })

  it('keeps the upstream type when it has one', () => {
    expect(
      normaliseUpstreamError(
        400,
        '{"error":{"message":"x","type":"exceed_context_size_error"}}',
        'application/json',
        's',
      ).type,
    ).toBe('exceed_context_size_error')
  })

  it('spots a 200 that carries an error', () => {
    expect(looksLikeErrorBody(' {"error":"model not found"}')).toBe(true)
    expect(looksLikeErrorBody('{"id":"chatcmpl-1","error":null}')).toBe(false)
  })

  it('clips huge messages', () => {
    expect(normaliseUpstreamError(500, 'x'.repeat(10_000), 'text/plain', 's').message.length).toBeLessThan(
      600,
    )
  })

  it('lets the provider that knows the engine read an error first, with the body parsed when it is JSON', () => {
    const seen: unknown[] = []
    const engine = (status: number, body: unknown) => {
      seen.push(body)
      return status === 400 ? new SvcError('context.too_long', 'too long') : undefined
    }
    const json = '{"error":{"type":"exceed_context_size_error","n_ctx":256}}'
    expect(normaliseUpstreamError(400, json, 'application/json', 'slot primary', engine).code).toBe(
      'context.too_long',
    )
    expect(seen[0]).toEqual({ error: { type: 'exceed_context_size_error', n_ctx: 256 } })
    // Not recognised: the generic reading, and a text body reaches the provider as text.
    expect(normaliseUpstreamError(500, 'Internal error', 'text/plain', 'slot primary', engine).code).toBe(
      'upstream.error',
    )
    expect(seen[1]).toBe('Internal error')
  })
})
