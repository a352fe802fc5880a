import { describe, expect, it } from 'vitest'
import { isSecretName, redactBodyText, redactHeaders, redactJson } from './capture-redact'

describe('capture redaction', () => {
  it.each([
    'Authorization',
    'x-api-key',
    'Api-Key',
    'api_key',
    'apiKey',
    'OPENAI_API_KEY',
    'token',
    'access_token',
    'hfToken',
    'password',
    'client_secret',
    'Cookie',
    'X-Svc-Proxy-Secret',
  ])('treats %s as a secret', (name) => expect(isSecretName(name)).toBe(true))

  it.each(['max_tokens', 'prompt_tokens', 'model', 'cache_key', 'content-type', 'user', 'keep_alive'])(
    'keeps %s',
    (name) => expect(isSecretName(name)).toBe(false),
  )

  it('redacts secret headers and secret-looking values, keeping the names', () => {
    expect(
      redactHeaders({ authorization: 'Bearer x', 'x-trace': 'sk-abcdefgh12345', accept: ['a', 'b'], n: 3 }),
    ).toEqual({ authorization: '[redacted]', 'x-trace': '[redacted]', accept: 'a, b', n: '3' })
  })

  it('redacts key fields at any depth and values that look like keys', () => {
    expect(
      redactJson({
        model: 'm',
        api_key: 'x',
        tools: [{ auth: { password: 'p', credentials: { u: 1 } } }],
        note: 'hf_abcdefghijk',
        max_tokens: 5,
      }),
    ).toEqual({
      model: 'm',
      api_key: '[redacted]',
      tools: [{ auth: { password: '[redacted]', credentials: '[redacted]' } }],
      note: '[redacted]',
      max_tokens: 5,
    })
  })

  it('redacts a body cut at the cap (not whole JSON) word by word', () => {
    const cut =
      '{"model":"m","api_key":"sk-live-abcdefghijkl","messages":[{"role":"user","content":"Bearer abc.def'
    const out = redactBodyText(cut)
    expect(out).not.toContain('sk-live-abcdefghijkl')
    expect(out).not.toContain('abc.def')
    expect(out).toContain('"model":"m"')
  })
})
