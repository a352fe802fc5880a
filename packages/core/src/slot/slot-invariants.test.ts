/**
 * Invariants of the slot owner under random sequences of load, unload, acquire, release, crash,
 * failing starts and pulls, and the passing of time (which fires restarts, drains and time-outs).
 * fast-check generates the sequences and shrinks a failing one to the shortest that still fails;
 * the clock is the test's, so every run is exact and replayable from the printed seed.
 *
 * After every step:
 * - in-flight is never below 0, and equals the leases still out on the upstream the slot runs now
 *   (no lease outlives its upstream; a late release never changes another upstream's count);
 * - in ready/serving/idle, the slot is `serving` exactly while leases are out; with no upstream
 *   (offline, pulling, starting, warming) nothing is in flight;
 * - every transition is in the table and starts where the previous one ended;
 * - loads, unloads and leases fail only with the documented errors.
 * At the end, after everything is released and unloaded: offline, nothing in flight, and every
 * upstream ever started has exited (no orphan).
 */
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { createTestClock } from '../../test/slot/test-clock'
import { createTestDriver, model } from '../../test/slot/test-driver'
import { SvcError } from '../errors'
import { createEventBus } from '../event-bus'
import type { SlotTransitionEvent, SvcEvents } from '../events'
import { defaultSlotConfig } from '../slot-config'
import { canTransition, type SlotState } from '../slot-states'
import { Slot } from './slot'
import type { Lease } from './slot-types'

type Action =
  | { kind: 'load'; model: 'a' | 'b' }
  | { kind: 'unload' }
  | { kind: 'acquire'; timeoutMs: number; abortAfterMs: number | null }
  | { kind: 'release'; pick: number; twice: boolean }
  | { kind: 'crash'; pick: number }
  | { kind: 'advance'; ms: number }
  | { kind: 'failStarts'; on: boolean }
  | { kind: 'missing'; model: 'a' | 'b' }
  | { kind: 'slowWarmup'; probes: number }

const action: fc.Arbitrary<Action> = fc.oneof(
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('load'), model: fc.constantFrom('a', 'b') }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('unload') }) },
  {
    weight: 5,
    arbitrary: fc.record({
      kind: fc.constant('acquire'),
      timeoutMs: fc.integer({ min: 0, max: 3_000 }),
      abortAfterMs: fc.option(fc.integer({ min: 0, max: 500 })),
    }),
  },
  {
    weight: 4,
    arbitrary: fc.record({ kind: fc.constant('release'), pick: fc.nat(), twice: fc.boolean() }),
  },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('crash'), pick: fc.nat() }) },
  {
    weight: 4,
    arbitrary: fc.record({ kind: fc.constant('advance'), ms: fc.integer({ min: 0, max: 2_500 }) }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('failStarts'), on: fc.boolean() }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('missing'), model: fc.constantFrom('a', 'b') }) },
  {
    weight: 1,
    arbitrary: fc.record({ kind: fc.constant('slowWarmup'), probes: fc.integer({ min: 0, max: 12 }) }),
  },
)

/** Errors the slot may answer with (docs/architecture.md "Errors"); anything else is a bug. */
const EXPECTED_CODES = new Set(['model.not_loaded', 'slot.unavailable', 'upstream.unavailable'])
const NO_UPSTREAM: readonly SlotState[] = ['offline', 'pulling', 'starting', 'warming']

async function runScenario(actions: Action[]): Promise<void> {
  const clock = createTestClock()
  const bus = createEventBus<SvcEvents>()
  const driver = createTestDriver({ probesUntilHealthy: 0, warmupTimeoutMs: 1_000, pullStepMs: 300 })
  driver.clock = clock
  const slot = new Slot({
    config: { ...defaultSlotConfig('primary')!, maxRestarts: 3 },
    driver,
    bus,
    clock,
    drainMs: 1_000,
    probeIntervalMs: 100,
    restartBaseDelayMs: 500,
    restartMaxDelayMs: 2_000,
  })
  const problems: string[] = []
  const transitions: SlotTransitionEvent[] = []
  bus.on('slot.transition', (e) => {
    const previous = transitions.at(-1)?.to ?? 'offline'
    if (e.from !== previous) problems.push(`transition from ${e.from}, but the slot was ${previous}`)
    if (!canTransition(e.from, e.to)) problems.push(`transition ${e.from} -> ${e.to} is not in the table`)
    transitions.push(e)
  })
  const unexpected = (what: string) => (error: unknown) => {
    if (!(error instanceof SvcError && EXPECTED_CODES.has(error.code)) && !isClientGone(error)) {
      problems.push(`${what} failed with ${error instanceof Error ? error.stack : String(error)}`)
    }
  }
  const exited = new Set<unknown>()
  const held: { lease: Lease; released: boolean }[] = []
  const pending: Promise<unknown>[] = []

  const check = (step: string) => {
    const snap = slot.snapshot()
    const current = driver.handles.find((h) => h.base.origin === snap.upstream?.base)
    const counted = held.filter(
      (h) => !h.released && current && !exited.has(current) && h.lease.base.origin === current.base.origin,
    ).length
    const where = `after ${step}: ${snap.state} with ${snap.inflight} in flight`
    if (snap.inflight < 0) problems.push(`${where}: in-flight below 0`)
    if (snap.inflight !== counted)
      problems.push(`${where}: ${counted} leases are out on the current upstream`)
    if (snap.state === 'serving' && snap.inflight === 0) problems.push(`${where}: serving with no lease out`)
    if ((snap.state === 'ready' || snap.state === 'idle') && snap.inflight > 0) {
      problems.push(`${where}: leases out but not serving`)
    }
    if (NO_UPSTREAM.includes(snap.state) && snap.inflight !== 0) problems.push(`${where}: no upstream`)
    if (snap.state !== (transitions.at(-1)?.to ?? 'offline'))
      problems.push(`${where}: state differs from events`)
  }

  for (const [i, a] of actions.entries()) {
    switch (a.kind) {
      case 'load':
        pending.push(slot.load(model(a.model)).catch(unexpected('load')))
        break
      case 'unload':
        pending.push(slot.unload().catch(unexpected('unload')))
        break
      case 'acquire': {
        const client = new AbortController()
        if (a.abortAfterMs !== null) {
          void clock.sleep(a.abortAfterMs).then(() => client.abort(new ClientGone()))
        }
        pending.push(
          slot
            .acquire({ timeoutMs: a.timeoutMs, signal: client.signal })
            .then((lease) => held.push({ lease, released: false }), unexpected('acquire')),
        )
        break
      }
      case 'release': {
        const out = held.filter((h) => !h.released)
        const h = out[a.pick % Math.max(1, out.length)]
        if (h) {
          h.released = true
          h.lease.release()
          if (a.twice) h.lease.release()
        }
        break
      }
      case 'crash': {
        const live = driver.handles.filter((h) => !exited.has(h))
        live[a.pick % Math.max(1, live.length)]?.crash('killed by SIGKILL')
        break
      }
      case 'advance':
        await clock.advance(a.ms)
        break
      case 'failStarts':
        if (a.on) driver.failStart = 'cannot start'
        else delete driver.failStart
        break
      case 'missing':
        driver.missing.add(a.model)
        break
      case 'slowWarmup':
        driver.probesUntilHealthy = a.probes
        break
    }
    for (const h of driver.handles) void h.exited.then(() => exited.add(h))
    await clock.settle()
    check(`step ${i} (${JSON.stringify(a)})`)
    if (problems.length > 0) break
  }

  // Wind down: release what is out, unload, and let every timer run out.
  if (problems.length === 0) {
    for (const h of held.filter((x) => !x.released)) {
      h.released = true
      h.lease.release()
    }
    delete driver.failStart
    await clock.run(slot.unload().catch(unexpected('final unload')))
    await clock.run(Promise.all(pending))
    await clock.run(slot.unload().catch(unexpected('final unload')))
    for (const h of driver.handles) void h.exited.then(() => exited.add(h))
    await clock.settle()
    check('the final unload')
    const snap = slot.snapshot()
    if (snap.state !== 'offline') problems.push(`ended ${snap.state}, not offline`)
    const orphans = driver.handles.filter((h) => !exited.has(h)).length
    if (orphans > 0) problems.push(`${orphans} upstream(s) never stopped`)
  }
  expect(problems).toEqual([])
}

class ClientGone extends Error {}
const isClientGone = (error: unknown) => error instanceof ClientGone

describe('Slot invariants (property-based)', () => {
  it('hold for random sequences of load, unload, acquire, release, crash, restart and time', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(action, { minLength: 1, maxLength: 60, size: 'max' }), runScenario),
      { numRuns: 300 },
    )
  }, 120_000)
})
