import { describe, expect, it } from 'vitest'
import { errorShapeFor, renderErrorFor, sseErrorEventFor } from './error-shapes'
import { SvcError } from './errors'

describe('error shapes by surface', () => {
  it('uses Anthropic shape under /v1/messages only', () => {
    expect(errorShapeFor('/v1/messages')).toBe('anthropic')
    expect(errorShapeFor('/v1/messages/count_tokens')).toBe('anthropic')
    expect(errorShapeFor('/v1/messages?beta=true')).toBe('anthropic')
    expect(errorShapeFor('/v1/messagesX')).toBe('openai')
    expect(errorShapeFor('/v1/responses')).toBe('openai')
    expect(errorShapeFor(undefined)).toBe('openai')
  })

  it("renders Anthropic's body with the same status and headers, svc's code kept", () => {
    const error = new SvcError('auth.required', 'no token', { headers: { 'WWW-Authenticate': 'Bearer' } })
    const r = renderErrorFor('/v1/messages', error)
    expect(r.status).toBe(401)
    expect(r.headers['WWW-Authenticate']).toBe('Bearer')
    expect(JSON.parse(r.body)).toEqual({
      type: 'error',
      error: { type: 'authentication_error', message: 'no token', svc_code: 'auth.required', param: null },
    })
    const types = [
      'model.not_found',
      'auth.forbidden',
      'request.invalid',
      'slot.unavailable',
      'upstream.error',
    ].map(
      (code) => JSON.parse(renderErrorFor('/v1/messages', new SvcError(code as never, 'x')).body).error.type,
    )
    expect(types).toEqual([
      'not_found_error',
      'permission_error',
      'invalid_request_error',
      'overloaded_error',
      'api_error',
    ])
  })

  it('hides an unexpected error the same way in both shapes', () => {
    const r = renderErrorFor('/v1/messages', new Error('secret'))
    expect(r.status).toBe(500)
    expect(r.body).not.toContain('secret')
    expect(r.unexpected).toBe(true)
  })

  it('ends an Anthropic stream with an error event', () => {
    const event = sseErrorEventFor('/v1/messages', new SvcError('upstream.unavailable', 'gone'))
    expect(event).toMatch(/^event: error\ndata: \{"type":"error"/)
    expect(sseErrorEventFor('/v1/chat/completions', new SvcError('upstream.unavailable', 'gone'))).toMatch(
      /^data: \{"error":/,
    )
  })
})
