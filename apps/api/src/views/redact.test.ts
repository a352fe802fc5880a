import { describe, expect, it } from 'vitest'
import { isAdmin, redactArgs, redactText } from './redact'

describe('redactText', () => {
  it('keeps scheme and host of a URL, never credentials, port, path or query', () => {
    expect(redactText('pull of https://u:p@cdn.example:8443/a/b/model.gguf?X-Amz-Signature=abc failed')).toBe(
      'pull of https://cdn.example/… failed',
    )
    expect(redactText('remote upstream at http://127.0.0.1:39515 stopped')).toBe(
      'remote upstream at http://127.0.0.1 stopped',
    )
    expect(redactText('at http://[::1]:8080/x')).toBe('at http://[::1]/…')
    // How a replica set names each replica in lastError: `origin: error`.
    expect(redactText('none answers: http://127.0.0.1:39515: refused; http://u:p@h:1/x.')).toBe(
      'none answers: http://127.0.0.1: refused; http://h/….',
    )
  })

  it('reduces absolute file paths to their file name', () => {
    expect(redactText('cannot open /var/lib/svc/models/qwen/qwen.gguf: ENOENT')).toBe(
      'cannot open …/qwen.gguf: ENOENT',
    )
    expect(redactText("llama-server: loading model '/home/me/m/x.gguf'")).toBe(
      "llama-server: loading model '…/x.gguf'",
    )
  })

  it('leaves plain messages alone', () => {
    expect(redactText('llama-server exited with code 1 (out of memory)')).toBe(
      'llama-server exited with code 1 (out of memory)',
    )
    expect(redactText('ratio 3/4 and and/or')).toBe('ratio 3/4 and and/or')
  })
})

describe('redactText on long lines', () => {
  it.each([
    ['a word start at every other character', 'a-'.repeat(50_000)],
    ['dots between letters', 'a.'.repeat(50_000)],
    ['a URL ending in a long run of punctuation', `see http://h:1/${'.'.repeat(100_000)}x`],
  ])('takes linear time on %s', (_name, line) => {
    // Quadratic, this took seconds per 100 KB line; linear, it takes a few ms.
    const t0 = performance.now()
    redactText(line)
    expect(performance.now() - t0).toBeLessThan(200)
  })

  it('still redacts a URL at the end of a long run of scheme characters', () => {
    expect(redactText(`${'a-'.repeat(50)}http://user:pw@h:8080/x`)).toContain('http://h/…')
    expect(redactText(`http://h:1/${'.'.repeat(1000)}x.`)).toBe('http://h/….')
  })
})

describe('isAdmin', () => {
  it('is true for admin tokens, the forwarded identity and auth off; false for other scopes', () => {
    expect(isAdmin({ kind: 'auth-off', scope: 'admin' })).toBe(true)
    expect(isAdmin({ kind: 'proxy', scope: 'admin', email: 'a@b' })).toBe(true)
    expect(isAdmin({ kind: 'token', scope: 'admin', tokenId: 'x', label: 'x' })).toBe(true)
    expect(isAdmin({ kind: 'token', scope: 'all', tokenId: 'x', label: 'x' })).toBe(false)
    expect(isAdmin({ kind: 'token', scope: 'read-only', tokenId: 'x', label: 'x' })).toBe(false)
  })
})

describe('redactArgs', () => {
  it('hides the value after a flag that names a secret, in both spellings', () => {
    expect(redactArgs(['--api-key', 'abc', '--hf-token=xyz', '--password', 'p', '-ngl', '99'])).toEqual([
      '--api-key',
      '[redacted]',
      '--hf-token=[redacted]',
      '--password',
      '[redacted]',
      '-ngl',
      '99',
    ])
  })

  it('hides values that look like keys after any flag, and variables that name a secret', () => {
    expect(
      redactArgs(['--header', 'sk-proj-abc', 'HF_TOKEN=hf_x', 'OPENAI_API_KEY=zzz', 'MODE=fast']),
    ).toEqual(['--header', '[redacted]', 'HF_TOKEN=[redacted]', 'OPENAI_API_KEY=[redacted]', 'MODE=fast'])
  })

  it('reduces URLs with credentials and paths, keeps the rest, and does not eat the next flag', () => {
    expect(redactArgs(['--rpc', 'http://u:pw@10.0.0.7:50052', '--api-key', '--ctx-size', '8192'])).toEqual([
      '--rpc',
      'http://10.0.0.7',
      '--api-key',
      '--ctx-size',
      '8192',
    ])
    expect(redactArgs(['--lora', '/home/me/adapters/a.gguf'])).toEqual(['--lora', '…/a.gguf'])
  })
})
