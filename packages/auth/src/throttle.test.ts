import { describe, expect, it } from 'vitest'
import { createFailureThrottle } from './throttle'

function clock(start = 1_000_000) {
  let now = start
  return { now: () => now, advance: (ms: number) => (now += ms) }
}

describe('createFailureThrottle', () => {
  it('allows a burst of failures, then refuses with the seconds until one more is allowed', () => {
    const c = clock()
    const t = createFailureThrottle({ burst: 3, refillMs: 6000, clock: c.now })
    for (let i = 0; i < 3; i++) {
      expect(t.check('1.2.3.4')).toEqual({ allowed: true })
      t.fail('1.2.3.4')
    }
    expect(t.check('1.2.3.4')).toEqual({ allowed: false, retryAfterS: 6 })
    c.advance(4000)
    expect(t.check('1.2.3.4')).toEqual({ allowed: false, retryAfterS: 2 })
    c.advance(2000)
    expect(t.check('1.2.3.4')).toEqual({ allowed: true })
  })

  it('keeps clients apart', () => {
    const t = createFailureThrottle({ burst: 1, clock: clock().now })
    t.fail('a')
    expect(t.check('a').allowed).toBe(false)
    expect(t.check('b').allowed).toBe(true)
  })

  it('refills to the burst and no further', () => {
    const c = clock()
    const t = createFailureThrottle({ burst: 2, refillMs: 1000, clock: c.now })
    t.fail('a')
    c.advance(60_000)
    t.fail('a')
    t.fail('a')
    expect(t.check('a').allowed).toBe(false)
  })

  it('holds at most maxKeys keys, dropping recovered keys first, then the least recently failed', () => {
    const c = clock()
    const t = createFailureThrottle({ burst: 2, refillMs: 1000, maxKeys: 3, clock: c.now })
    t.fail('old')
    t.fail('old')
    t.fail('recovered')
    c.advance(500)
    t.fail('x')
    expect(t.size).toBe(3)
    c.advance(600) // 'recovered' is full again (1.1 refills); 'old' and 'x' are not
    t.fail('y')
    expect(t.size).toBe(3)
    expect(t.check('old').allowed).toBe(true) // 'old' has 1.1 left
    t.fail('z') // nothing recovered: the least recently failed ('old') goes
    expect(t.size).toBe(3)
    for (let i = 0; i < 10_000; i++) t.fail(`k${i}`)
    expect(t.size).toBe(3)
  })

  it('take counts a failure before the attempt, so concurrent takes cannot overrun the burst', () => {
    const c = clock()
    const t = createFailureThrottle({ burst: 3, refillMs: 6000, clock: c.now })
    const decisions = Array.from({ length: 10 }, () => t.take('guesser'))
    expect(decisions.filter((d) => d.allowed)).toHaveLength(3)
    expect(decisions.at(-1)).toEqual({ allowed: false, retryAfterS: 6 })
  })

  it('refund gives back one taken failure, never more than the burst, and forgets a full bucket', () => {
    const c = clock()
    const t = createFailureThrottle({ burst: 2, refillMs: 1000, clock: c.now })
    t.fail('a')
    expect(t.take('a').allowed).toBe(true)
    expect(t.check('a').allowed).toBe(false)
    t.refund('a') // the attempt succeeded: only its own reservation comes back
    expect(t.check('a').allowed).toBe(true)
    expect(t.take('a').allowed).toBe(true)
    expect(t.check('a').allowed).toBe(false)
    t.refund('a')
    t.refund('a')
    t.refund('a')
    expect(t.size).toBe(0)
    expect(t.take('a').allowed).toBe(true)
    expect(t.take('a').allowed).toBe(true)
    expect(t.take('a').allowed).toBe(false)
  })
})
