import { describe, expect, it } from 'vitest'
import { LeaseLedger } from './lease-ledger'

const a = { name: 'upstream a' }
const b = { name: 'upstream b' }

describe('LeaseLedger', () => {
  it('counts leases per instance and in total, and calls onIdle when the last one is released', () => {
    let idle = 0
    const ledger = new LeaseLedger({ onIdle: () => idle++ })
    ledger.open(a)
    ledger.open(b)
    const ra = ledger.take(a)
    const rb1 = ledger.take(b)
    const rb2 = ledger.take(b)
    expect([ledger.inflight(a), ledger.inflight(b), ledger.inflight()]).toEqual([1, 2, 3])
    rb1()
    rb1()
    expect([ledger.inflight(b), ledger.inflight()]).toEqual([1, 2])
    ra()
    rb2()
    expect(ledger.inflight()).toBe(0)
    expect(idle).toBe(1)
  })

  it('a release after its instance closed changes no other instance, and the count never goes below 0', () => {
    let idle = 0
    const ledger = new LeaseLedger({ onIdle: () => idle++ })
    ledger.open(a)
    const old = ledger.take(a)
    expect(ledger.close(a)).toBe(1)
    expect(ledger.inflight()).toBe(0)
    ledger.open(b)
    const live = ledger.take(b)
    old()
    expect([ledger.inflight(b), ledger.inflight()]).toEqual([1, 1])
    expect(idle).toBe(0)
    live()
    expect(ledger.inflight()).toBe(0)
    expect(idle).toBe(1)
  })

  it('closing one replica leaves the other replica’s leases counted', () => {
    const ledger = new LeaseLedger()
    ledger.open(a)
    ledger.open(b)
    ledger.take(a)
    const rb = ledger.take(b)
    ledger.close(a)
    expect([ledger.inflight(a), ledger.inflight(b), ledger.inflight()]).toEqual([0, 1, 1])
    rb()
    expect(ledger.inflight()).toBe(0)
  })

  it('refuses a lease on an instance that is not open (or no longer)', () => {
    const ledger = new LeaseLedger()
    expect(() => ledger.take(a)).toThrow(/not open/)
    ledger.open(a)
    ledger.close(a)
    expect(ledger.isOpen(a)).toBe(false)
    expect(() => ledger.take(a)).toThrow(/not open/)
  })

  it('drained resolves when the instance’s last lease is released, or when it closes', async () => {
    const ledger = new LeaseLedger()
    expect(await Promise.race([ledger.drained(a), 'pending'])).toBeUndefined()
    ledger.open(a)
    ledger.open(b)
    const ra = ledger.take(a)
    ledger.take(b)
    let aDrained = false
    let bDrained = false
    void ledger.drained(a).then(() => {
      aDrained = true
    })
    void ledger.drained(b).then(() => {
      bDrained = true
    })
    await Promise.resolve()
    expect([aDrained, bDrained]).toEqual([false, false])
    ra()
    await Promise.resolve()
    expect([aDrained, bDrained]).toEqual([true, false])
    ledger.close(b)
    await Promise.resolve()
    expect(bDrained).toBe(true)
  })
})
