import { describe, expect, it } from 'vitest'
import { readErrorBody } from './error-body'
import { anthropicErrorBody } from './error-shapes'
import { renderError, SvcError } from './errors'

describe('readErrorBody', () => {
  it('reads what renderError writes (text or parsed), code, message and param', () => {
    const rendered = renderError(
      new SvcError('request.invalid', 'temperature must be a number', { param: 'temperature' }),
    )
    const expected = {
      code: 'request.invalid',
      message: 'temperature must be a number',
      param: 'temperature',
    }
    expect(readErrorBody(rendered.body, 'HTTP 400')).toEqual(expected)
    expect(readErrorBody(JSON.parse(rendered.body), 'HTTP 400')).toEqual(expected)
  })

  it("reads the Anthropic shape svc answers under /v1/messages (svc's code from svc_code)", () => {
    const body = anthropicErrorBody(new SvcError('model.not_found', 'no model "x"', { param: 'model' }))
    expect(readErrorBody(JSON.stringify(body), 'HTTP 404')).toEqual({
      code: 'model.not_found',
      message: 'no model "x"',
      param: 'model',
    })
  })

  it('reads a bare {"error":"…"} as the message', () => {
    expect(readErrorBody('{"error":"out of memory"}', 'HTTP 500')).toEqual({
      code: null,
      message: 'out of memory',
      param: null,
    })
  })

  it("reads the code svc's Ollama API puts beside the bare message", () => {
    expect(readErrorBody('{"error":"no model x","code":"model.not_found"}', 'HTTP 404')).toEqual({
      code: 'model.not_found',
      message: 'no model x',
      param: null,
    })
  })

  it('keeps the start of a body that is not an error body, and the fallback for an empty one', () => {
    const html = `<html>${'x'.repeat(1000)}</html>`
    const read = readErrorBody(html, 'HTTP 502')
    expect(read.code).toBeNull()
    expect(read.message).toBe(html.slice(0, 300))
    expect(readErrorBody('', 'HTTP 502').message).toBe('HTTP 502')
    expect(readErrorBody(null, 'HTTP 502').message).toBe('HTTP 502')
    expect(readErrorBody({ ok: false }, 'HTTP 502').message).toBe('HTTP 502')
    expect(readErrorBody('{"error":{"message":""}}', 'HTTP 502').message).toBe('{"error":{"message":""}}')
  })
})
