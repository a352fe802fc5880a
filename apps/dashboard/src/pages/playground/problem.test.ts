import { describe, expect, it } from 'vitest'
import { describeFailure } from './problem'

const fail = (code: string | null, message: string, status: number | null = 400) => ({
  code,
  message,
  status,
})

describe('describeFailure', () => {
  it('offers Load for an empty slot, and never shows the command in the API message', () => {
    const said = describeFailure(
      fail(
        'model.not_loaded',
        'slot "primary" holds no model; load one with: svc slot load primary --model <id>',
        409,
      ),
      'primary',
    )
    expect(said).toEqual({
      text: 'primary holds no model right now. Load one, then send again.',
      fix: 'load',
    })
  })

  it("points a context that is too small at the slot's settings", () => {
    expect(describeFailure(fail('context.too_long', 'n_ctx 512, prompt 900 tokens'), 'primary').fix).toBe(
      'settings',
    )
  })

  it('says a too large request in human units, and unreadable audio in plain words', () => {
    expect(
      describeFailure(fail('request.too_large', 'request body is larger than 1048576 bytes', 413), 'x').text,
    ).toBe('This request is too large for the server (the most it takes is 1.0 MB).')
    expect(describeFailure(fail('audio.unreadable', 'ffmpeg: invalid data'), 'stt').text).toMatch(
      /^This file is not audio/,
    )
  })

  it("keeps the API's own message unless it names a command", () => {
    expect(describeFailure(fail('upstream.error', 'the engine crashed', 502), 'x').text).toBe(
      'the engine crashed',
    )
    expect(describeFailure(fail('x.y', 'run `svc doctor` first', 500), 'x').text).toBe(
      'The server refused the request (x.y).',
    )
  })
})
