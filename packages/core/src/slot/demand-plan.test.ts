import { describe, expect, it } from 'vitest'
import { type DemandState, type DemandWaiter, planDemand } from './demand-plan'

const w = (id: number, ref: string | null, since = 0): DemandWaiter => ({ id, ref, since })
const state = (over: Partial<DemandState>): DemandState => ({
  now: 0,
  held: 'a',
  ready: true,
  readySince: 0,
  inflight: 0,
  maxConcurrent: 0,
  maxSwapWaitMs: 10_000,
  waiters: [],
  ...over,
})

describe('planDemand', () => {
  it('grants every request for the loaded model when there is no limit', () => {
    const step = planDemand(state({ waiters: [w(1, 'a'), w(2, null), w(3, 'a')] }))
    expect(step).toEqual({ grant: [1, 2, 3], swapTo: null, wakeAt: null })
  })

  it('grants only up to max_concurrent, counting what is in flight', () => {
    const step = planDemand(state({ maxConcurrent: 2, inflight: 1, waiters: [w(1, 'a'), w(2, 'a')] }))
    expect(step.grant).toEqual([1])
  })

  it('loads the oldest named model into an empty slot', () => {
    const step = planDemand(state({ held: null, ready: false, waiters: [w(1, null), w(2, 'b'), w(3, 'c')] }))
    expect(step).toEqual({ grant: [], swapTo: 'b', wakeAt: null })
  })

  it('does nothing while a load is under way', () => {
    expect(planDemand(state({ ready: false, waiters: [w(1, 'a'), w(2, 'b')] }))).toEqual({
      grant: [],
      swapTo: null,
      wakeAt: null,
    })
  })

  it('keeps serving the loaded model while another waits less than max_swap_wait, and says when to look again', () => {
    const step = planDemand(
      state({ now: 4_000, readySince: 1_000, inflight: 1, waiters: [w(1, 'b', 2_000), w(2, 'a', 3_000)] }),
    )
    expect(step).toEqual({ grant: [2], swapTo: null, wakeAt: 12_000 })
  })

  it('swaps once the window is over, granting no more of the loaded model', () => {
    const step = planDemand(
      state({ now: 12_000, readySince: 1_000, inflight: 3, waiters: [w(1, 'b', 2_000), w(2, 'a', 11_000)] }),
    )
    expect(step).toEqual({ grant: [], swapTo: 'b', wakeAt: null })
  })

  it('gives a freshly loaded model its whole window even when the other waited long', () => {
    const step = planDemand(
      state({
        now: 21_000,
        held: 'b',
        readySince: 20_000,
        inflight: 1,
        waiters: [w(1, 'a', 5_000), w(2, 'b', 20_500)],
      }),
    )
    expect(step).toEqual({ grant: [2], swapTo: null, wakeAt: 30_000 })
  })

  it('swaps at once when nobody waits for the loaded model and nothing is in flight', () => {
    const step = planDemand(state({ now: 1, waiters: [w(1, 'b', 1)] }))
    expect(step.swapTo).toBe('b')
  })

  it('lets requests that named the slot ride along with the loaded model', () => {
    const step = planDemand(state({ now: 1, inflight: 1, waiters: [w(1, 'b', 0), w(2, null, 0)] }))
    expect(step.grant).toEqual([2])
  })

  it('takes other models in the order their oldest request arrived', () => {
    const step = planDemand(state({ now: 50_000, waiters: [w(1, 'c', 10), w(2, 'b', 20), w(3, 'c', 30)] }))
    expect(step.swapTo).toBe('c')
  })

  it('serves the requests that waited for a load before swapping again, even with max_swap_wait 0', () => {
    const step = planDemand(
      state({
        now: 5_000,
        held: 'b',
        readySince: 5_000,
        maxSwapWaitMs: 0,
        waiters: [w(1, 'a', 100), w(2, 'b', 200)],
      }),
    )
    expect(step).toEqual({ grant: [2], swapTo: null, wakeAt: null })
  })
})
