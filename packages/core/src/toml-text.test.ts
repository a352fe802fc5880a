import { describe, expect, it } from 'vitest'
import { parseTomlText } from './toml-text'

describe('parseTomlText', () => {
  it('gives the data of valid TOML', () => {
    expect(parseTomlText('[[upstream]]\nname = "openai"\n', 'upstreams.toml')).toEqual({
      ok: true,
      data: { upstream: [{ name: 'openai' }] },
    })
  })

  it('names the file and the first line of the parser message for a syntax error, without throwing', () => {
    expect(parseTomlText('[image\nname = ', 'manifests/images.toml')).toEqual({
      ok: false,
      error: expect.stringMatching(/^manifests\/images\.toml: not valid TOML \([^\n]+\)$/),
    })
  })
})
