import { afterEach, describe, expect, it, vi } from 'vitest'
import { missingPart } from '../src/require-part'

describe('missing real parts', () => {
  afterEach(() => {
    vi.restoreAllMocks()
  })

  it('fails in CI instead of skipping', () => {
    expect(() => missingPart('llama-server', 'build it', { ci: true })).toThrow(
      /\[CI\] llama-server is not available/,
    )
  })

  it('skips loudly, with the reason, outside CI', () => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {})
    expect(missingPart('Caddy', 'apt-get install caddy', { ci: false })).toEqual({
      skip: true,
      reason: 'Caddy is not available: apt-get install caddy',
    })
    expect(warn).toHaveBeenCalledWith(expect.stringContaining('SKIPPING'))
  })
})
