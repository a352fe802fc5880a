import { parseOptions } from '@node-rs/argon2'
import { describe, expect, it } from 'vitest'
import { ARGON2_PARAMS, hashSecret, verifySecret } from './secret-hash'

describe('secret hashing', () => {
  it('uses argon2id at OWASP minimum cost or more (m=19 MiB, t=2, p=1) in production', async () => {
    expect(ARGON2_PARAMS.memoryCost).toBeGreaterThanOrEqual(19456)
    expect(ARGON2_PARAMS.timeCost).toBeGreaterThanOrEqual(2)
    expect(ARGON2_PARAMS.parallelism).toBe(1)
    const phc = await hashSecret('s'.repeat(43))
    expect(phc).toMatch(/^\$argon2id\$v=19\$m=19456,t=2,p=1\$/)
    const parsed = parseOptions(phc)
    expect(parsed.memoryCost).toBe(19456)
    expect(parsed.saltLen).toBeGreaterThanOrEqual(16)
    expect(await verifySecret(phc, 's'.repeat(43))).toBe(true)
    expect(await verifySecret(phc, 't'.repeat(43))).toBe(false)
  })

  it('salts every hash', async () => {
    const p = { memoryCost: 256, timeCost: 1, parallelism: 1 }
    expect(await hashSecret('x', p)).not.toBe(await hashSecret('x', p))
  })

  it('answers false, not an exception, for a malformed or foreign hash', async () => {
    expect(await verifySecret('$argon2id$garbage', 'x')).toBe(false)
    expect(await verifySecret('$argon2i$v=19$m=256,t=1,p=1$c2FsdHNhbHQ$aGFzaA', 'x')).toBe(false)
    expect(await verifySecret('', 'x')).toBe(false)
  })
})
