import { afterEach, describe, expect, it, vi } from 'vitest'
import { isCI, missingPart } from '../src/require-part'

describe('missing real parts', () => {
  const saved = process.env.CI
  afterEach(() => {
    if (saved === undefined) delete process.env.CI
    else process.env.CI = saved
    vi.restoreAllMocks()
  })

  it('counts CI=1 and CI=true as CI, and not CI=0, CI=false or no CI', () => {
    expect(isCI({ CI: '1' })).toBe(true)
    expect(isCI({ CI: 'true' })).toBe(true)
    expect(isCI({ CI: 'TRUE' })).toBe(true)
    expect(isCI({ CI: '0' })).toBe(false)
    expect(isCI({ CI: 'false' })).toBe(false)
    expect(isCI({ CI: '' })).toBe(false)
    expect(isCI({})).toBe(false)
  })

  it('fails under CI=1 instead of skipping', () => {
    process.env.CI = '1'
    expect(() => missingPart('llama-server', 'build it')).toThrow(/\[CI\] llama-server is not available/)
  })

  it('skips loudly, with the reason, outside CI', () => {
    delete process.env.CI
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {})
    expect(missingPart('Caddy', 'apt-get install caddy')).toEqual({
      skip: true,
      reason: 'Caddy is not available: apt-get install caddy',
    })
    expect(warn).toHaveBeenCalledWith(expect.stringContaining('SKIPPING'))
  })
})
