import { describe, expect, it } from 'vitest'
import { type ERROR_CODES, SvcError } from './errors'

describe('SvcError', () => {
  it('carries the status docs/architecture.md gives each code', () => {
    const expected: Record<string, number> = {
      'auth.required': 401,
      'auth.invalid': 401,
      'auth.forbidden': 403,
      'auth.throttled': 429,
      'model.not_found': 404,
      'model.not_loaded': 409,
      'slot.not_found': 404,
      'token.not_found': 404,
      'backend.unavailable': 409,
      'slot.unavailable': 503,
      'slot.busy': 429,
      'request.invalid': 400,
      'request.too_large': 413,
      'upstream.unavailable': 502,
      'upstream.timeout': 504,
    }
    for (const [code, status] of Object.entries(expected)) {
      expect(new SvcError(code as keyof typeof ERROR_CODES, 'x').status, code).toBe(status)
    }
  })

  it('renders the OpenAI-compatible body with param', () => {
    const err = new SvcError('request.invalid', 'messages must be an array', { param: 'messages' })
    expect(err.toBody()).toEqual({
      error: {
        code: 'request.invalid',
        message: 'messages must be an array',
        type: 'invalid_request_error',
        param: 'messages',
      },
    })
  })
})
