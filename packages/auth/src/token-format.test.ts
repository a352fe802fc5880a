import { describe, expect, it } from 'vitest'
import { generateToken, generateTokenId, parseToken, TOKEN_ID_PATTERN, TOKEN_LENGTH } from './token-format'

describe('token format', () => {
  it('generates svc_<12 char id>.<43 char base64url secret of 32 bytes>', () => {
    const { id, secret, token } = generateToken()
    expect(token).toBe(`svc_${id}.${secret}`)
    expect(token).toHaveLength(TOKEN_LENGTH)
    expect(id).toMatch(TOKEN_ID_PATTERN)
    expect(secret).toMatch(/^[A-Za-z0-9_-]{43}$/)
    expect(Buffer.from(secret, 'base64url')).toHaveLength(32)
  })

  it('parses what it generates', () => {
    for (let i = 0; i < 200; i++) {
      const { id, secret, token } = generateToken()
      expect(parseToken(token)).toEqual({ ok: true, id, secret })
    }
  })

  it('makes ids that are unique and never start with a dash', () => {
    const ids = new Set(Array.from({ length: 5000 }, () => generateTokenId()))
    expect(ids.size).toBe(5000)
    for (const id of ids) expect(id).toMatch(/^[A-Za-z0-9]{12}$/)
  })

  const good = generateToken()
  const cases: [string, string][] = [
    ['empty', ''],
    ['the prefix alone', 'svc_'],
    ['another prefix', `sk_${good.token.slice(3)}`],
    ['upper-case prefix', `SVC_${good.token.slice(4)}`],
    ['no separator', good.token.replace('.', '')],
    ['a dash in the id', `svc_${good.id.slice(0, 11)}-.${good.secret}`],
    ['a short id', `svc_${good.id.slice(1)}.${good.secret}x`],
    ['a long secret', `${good.token}A`],
    ['a short secret', good.token.slice(0, -1)],
    ['padding', `${good.token.slice(0, -1)}=`],
    ['standard base64 characters', `${good.token.slice(0, -2)}+A`],
    ['a non-canonical last character', `${good.token.slice(0, -1)}B`],
    ['surrounding space', ` ${good.token.slice(1)}`],
    ['non-ASCII', `${good.token.slice(0, -1)}é`],
    ['16 KB', 'a'.repeat(16 * 1024)],
  ]
  it.each(cases)('refuses %s as auth.invalid without throwing', (_name, text) => {
    const result = parseToken(text)
    expect(result.ok).toBe(false)
    if (!result.ok) {
      expect(result.code).toBe('auth.invalid')
      expect(result.reason).not.toContain(good.secret)
    }
  })

  it('refuses a value that is not a string', () => {
    expect(parseToken(undefined as unknown as string).ok).toBe(false)
  })
})
