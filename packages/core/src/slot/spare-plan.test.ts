/**
 * The spare slots' decision over random families, limits and memory answers (issue 40): never more
 * models than `max_loaded`, never a spare when memory is short or unknown, a held ref always goes to
 * its holder; and the memory budget evicts spares before any named slot.
 */
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { lruOrder, type MemoryHolder, planFit } from '../memory/budget-plan'
import { planSpare, type SpareQuestion, spareConfig, spareName, spareUnloadAfterMs } from './spare-plan'

const REFS = ['a', 'b', 'c', 'd', 'e', 'f']
const question = fc.record({
  ref: fc.constantFrom(...REFS),
  family: fc.array(fc.option(fc.constantFrom(...REFS), { nil: null }), { minLength: 1, maxLength: 6 }),
  maxLoaded: fc.integer({ min: 1, max: 6 }),
  room: fc.constantFrom(true, false, null),
}) satisfies fc.Arbitrary<SpareQuestion>

const loaded = (family: readonly (string | null)[]) => family.filter((m) => m !== null).length

describe('planSpare', () => {
  it('never takes the family past max_loaded', () => {
    fc.assert(
      fc.property(question, (q) => {
        if (planSpare(q).to === 'spare') expect(loaded(q.family) + 1).toBeLessThanOrEqual(q.maxLoaded)
      }),
    )
  })

  it('never opens a spare when memory is short or its size unknown', () => {
    fc.assert(
      fc.property(question, (q) => {
        if (q.room !== true) expect(planSpare(q).to).not.toBe('spare')
      }),
    )
  })

  it('sends a ref a member holds to that member, whatever the limits', () => {
    fc.assert(
      fc.property(question, (q) => {
        const at = q.family.indexOf(q.ref)
        if (at >= 0) expect(planSpare(q)).toEqual({ to: 'member', index: at })
      }),
    )
  })

  it('lets an empty parent load the ref itself (no spare beside nothing)', () => {
    fc.assert(
      fc.property(question, (q) => {
        const family = [null, ...q.family.slice(1).filter((m) => m !== q.ref)]
        expect(planSpare({ ...q, family })).toEqual({ to: 'parent' })
      }),
    )
  })

  it('opens a spare when the parent holds another model, memory has room and the limit allows', () => {
    expect(planSpare({ ref: 'b', family: ['a'], maxLoaded: 4, room: true })).toEqual({ to: 'spare' })
    expect(planSpare({ ref: 'c', family: ['a', 'b'], maxLoaded: 2, room: true })).toEqual({ to: 'parent' })
    expect(planSpare({ ref: 'b', family: ['a'], maxLoaded: 1, room: true })).toEqual({ to: 'parent' })
  })
})

describe('spare names and settings', () => {
  it('takes the first free <slot>-<n>, n from 2', () => {
    const taken = new Set(['primary-2', 'primary-4'])
    expect(spareName('primary', (n) => taken.has(n))).toBe('primary-3')
    expect(spareName('embed', () => false)).toBe('embed-2')
  })

  it("copies the parent's settings under its own name, never pinned, with no default model", () => {
    const parent = {
      name: 'primary',
      provider: 'llm',
      backend: 'cpu',
      enabled: true,
      restart: 'no',
      maxRestarts: 3,
      args: ['-np', '1'],
      evict: 'never',
      demand: { pullOnRequest: false, pinned: true, maxConcurrent: 2, maxQueue: 0, maxSwapWaitMs: 1 },
      routing: {},
      model: { default: 'x' },
    } as unknown as Parameters<typeof spareConfig>[0]
    const spare = spareConfig(parent, 'primary-2')
    expect(spare).toMatchObject({ name: 'primary-2', provider: 'llm', backend: 'cpu', args: ['-np', '1'] })
    expect(spare.demand).toMatchObject({ pinned: false, maxConcurrent: 2 })
    expect(spare.model).toEqual({})
  })

  it("unloads after the parent's unload_after, else after 5 minutes", () => {
    expect(spareUnloadAfterMs(60_000)).toBe(60_000)
    expect(spareUnloadAfterMs(undefined)).toBe(300_000)
    expect(spareUnloadAfterMs(0)).toBe(300_000)
  })
})

describe('the memory budget evicts spares first', () => {
  const holder = fc.record({
    slot: fc.string({ minLength: 1, maxLength: 6 }),
    spare: fc.boolean(),
    mib: fc.integer({ min: 1, max: 100 }),
    lastUsedAt: fc.option(fc.nat({ max: 1000 }), { nil: null }),
    evictable: fc.boolean(),
  })
  const asHolder = (h: {
    slot: string
    spare: boolean
    mib: number
    lastUsedAt: number | null
    evictable: boolean
  }): MemoryHolder => ({
    slot: h.slot,
    model: `${h.slot}-m`,
    state: 'idle',
    estimateBytes: h.mib,
    estimate: 'test',
    usedBytes: null,
    usedBy: null,
    chargedBytes: h.mib,
    lastUsedAt: h.lastUsedAt,
    inflight: 0,
    evictable: h.evictable,
    ...(h.spare ? { spare: true } : {}),
  })

  it('orders every spare before every named slot', () => {
    fc.assert(
      fc.property(fc.array(holder, { maxLength: 8 }), (hs) => {
        const order = lruOrder(hs.map(asHolder))
        const firstNamed = order.findIndex((h) => !h.spare)
        if (firstNamed >= 0) expect(order.slice(firstNamed).every((h) => !h.spare)).toBe(true)
      }),
    )
  })

  it('evicts a named slot only once every evictable spare is chosen', () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(holder, { selector: (h) => h.slot, maxLength: 8 }),
        fc.integer({ min: 1, max: 400 }),
        fc.integer({ min: 1, max: 800 }),
        (hs, need, budget) => {
          const holders = hs.map(asHolder)
          const plan = planFit({ budgetBytes: budget, holders, needBytes: need, mayEvict: true })
          if (!plan.fits) return
          const evicted = new Set(plan.evict)
          const spares = holders.filter((h) => h.spare && h.evictable)
          if (holders.some((h) => !h.spare && evicted.has(h.slot)))
            expect(spares.every((h) => evicted.has(h.slot))).toBe(true)
        },
      ),
    )
  })
})
