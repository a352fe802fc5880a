import { describe, expect, it } from 'vitest'
import { hubError } from './hub-errors'

const at = { hubUrl: 'https://huggingface.co', repo: 'o/r', what: 'resolving hf.co/o/r:Q4_K_M', token: false }
const failed = (code: string) => new TypeError('fetch failed', { cause: { code } })

describe('hubError for a Hub that cannot be reached', () => {
  it('says the machine looks offline when the name does not resolve, and the way on without the Hub', () => {
    const error = hubError(failed('ENOTFOUND'), at)
    expect(error.code).toBe('upstream.unavailable')
    expect(error.message).toBe(
      'cannot reach the Hugging Face Hub at https://huggingface.co (ENOTFOUND): this machine looks offline; load a local .gguf by path instead, or set HF_ENDPOINT to a mirror',
    )
  })

  it('does not blame the network when the Hub refuses the connection', () => {
    const error = hubError(failed('ECONNREFUSED'), at)
    expect(error.message).toMatch(/\(ECONNREFUSED\): it did not answer while resolving hf\.co\/o\/r:Q4_K_M;/)
    expect(error.message).not.toContain('offline')
    expect(error.message).toContain('set HF_ENDPOINT to a mirror')
  })
})
