import type { SlotState, SlotStatus } from '@svc/core'
import { describe, expect, it } from 'vitest'
import { applyEvent, INITIAL, type LiveState } from './live-state'

const primary: SlotStatus = {
  name: 'primary',
  provider: 'llm',
  backend: 'cpu',
  runtime: 'process',
  state: 'offline',
  model: null,
  inflight: 0,
  lastError: 'old failure',
  since: 0,
  progress: null,
  restarts: 0,
  upstream: null,
  configError: null,
  replicas: null,
  queue: { depth: 0, oldestSince: null },
}
const start: LiveState = applyEvent(INITIAL, 'snapshot', { slots: [primary] })

/** `primary` moving `from` → `to` with model `m` at `at` (plus `error` where one is given). */
function transition(s: LiveState, from: SlotState, to: SlotState, at: number, error?: string): LiveState {
  return applyEvent(s, 'slot.transition', {
    slot: 'primary',
    from,
    to,
    model: 'm',
    at,
    ...(error ? { error } : {}),
  })
}

describe('applyEvent', () => {
  it('follows a load: pulling with progress, then ready; a new load clears the old error', () => {
    let s = transition(start, 'offline', 'pulling', 1)
    expect(s.slots[0]).toMatchObject({ state: 'pulling', model: 'm', lastError: null, since: 1 })
    s = applyEvent(s, 'slot.progress', { slot: 'primary', model: 'm', done: 5, total: 10, at: 2 })
    expect(s.slots[0]?.progress).toEqual({ done: 5, total: 10 })
    s = transition(s, 'pulling', 'starting', 3)
    expect(s.slots[0]?.progress).toBeNull()
    s = transition(s, 'warming', 'serving', 4)
    expect(s.slots[0]?.inflight).toBe(1)
    s = transition(s, 'serving', 'idle', 5)
    expect(s.slots[0]?.inflight).toBe(0)
  })

  it('keeps the error of a failed transition and drops the model when offline', () => {
    const s = transition(start, 'warming', 'offline', 9, 'llama-server exited with code 1')
    expect(s.slots[0]).toMatchObject({
      state: 'offline',
      model: null,
      lastError: 'llama-server exited with code 1',
    })
  })

  it('clears the last error when a later load reaches ready and when the slot unloads (issue 39)', () => {
    // a crash while running keeps its error; the restart's ready clears it
    let s = transition(start, 'idle', 'offline', 1, 'llama-server exited with code 1')
    s = transition(s, 'warming', 'ready', 2)
    expect(s.slots[0]?.lastError).toBeNull()
    s = transition(s, 'ready', 'offline', 3, 'llama-server exited with code 1')
    s = transition(s, 'ready', 'unloading', 4)
    expect(s.slots[0]?.lastError).toBeNull()
  })

  it('ignores events for slots it does not know, and counts snapshots', () => {
    const s = applyEvent(start, 'slot.restart', {
      slot: 'nope',
      model: 'm',
      attempt: 2,
      delayMs: 1000,
      at: 1,
    })
    expect(s).toBe(start)
    expect(applyEvent(start, 'resync', { slots: [] })).toMatchObject({ slots: [], generation: 2 })
  })

  it('keeps live metrics and model pulls', () => {
    const m = { requestsPerMin: 3, p50Ms: 120, tokensPerS: 40, readyAt: 7 }
    let s = applyEvent(start, 'slot.metrics', { at: 1, slots: { primary: m } })
    s = applyEvent(s, 'model.pull', { model: 'x', status: 'pulling', done: 1, total: 2, at: 1 })
    expect(s.metrics.primary).toEqual(m)
    expect(s.pulls.x?.status).toBe('pulling')
  })

  it('keeps each slot queue from the snapshot and its slot.queue events', () => {
    expect(start.queues.primary).toEqual({ depth: 0, oldestSince: null })
    const s = applyEvent(start, 'slot.queue', { slot: 'primary', depth: 3, oldestSince: 500, at: 600 })
    expect(s.queues.primary).toEqual({ depth: 3, oldestSince: 500 })
  })

  it("adds a spare slot's card after its parent's family and drops it when the spare goes", () => {
    const embed: SlotStatus = { ...primary, name: 'embed', lastError: null }
    let s = applyEvent(INITIAL, 'snapshot', { slots: [primary, embed] })
    const added = { spare_of: 'primary', provider: 'llm', backend: 'cpu', runtime: 'process', at: 9 }
    s = applyEvent(s, 'slot.added', { slot: 'primary-2', ...added })
    s = applyEvent(s, 'slot.added', { slot: 'primary-3', ...added })
    expect(s.slots.map((x) => x.name)).toEqual(['primary', 'primary-2', 'primary-3', 'embed'])
    expect(s.slots[1]).toMatchObject({ state: 'offline', provider: 'llm', spare_of: 'primary' })
    s = applyEvent(s, 'slot.transition', {
      slot: 'primary-2',
      from: 'offline',
      to: 'starting',
      model: 'b',
      at: 10,
    })
    expect(s.slots[1]).toMatchObject({ state: 'starting', model: 'b' })
    s = applyEvent(s, 'slot.queue', { slot: 'primary-2', depth: 1, oldestSince: 10, at: 10 })
    s = applyEvent(s, 'slot.removed', { slot: 'primary-2', spare_of: 'primary', at: 20 })
    expect(s.slots.map((x) => x.name)).toEqual(['primary', 'primary-3', 'embed'])
    expect(s.queues['primary-2']).toBeUndefined()
  })
})
