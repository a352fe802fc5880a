/**
 * The replica choice inside a real slot, under random sequences (issue 40): replicas join and leave,
 * fail their probes or a request, requests with random prompts and sessions take and release leases,
 * and time passes. Whatever happened, a request goes only to a replica the slot lists as healthy at
 * that moment (a replica that left or is out of rotation never receives), and with cache routing a
 * conversation's next turn goes where its previous one went while that replica is healthy and not
 * overloaded.
 */
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { createTestClock } from '../../test/slot/test-clock'
import { model } from '../../test/slot/test-driver'
import { createEventBus } from '../event-bus'
import type { SvcEvents } from '../events'
import { defaultSlotConfig } from '../slot-config'
import type { SlotDriver, UpstreamExit, UpstreamHandle, UpstreamMember } from '../slot-driver'
import type { RouteHints } from './replica-routing'
import { Slot } from './slot'
import type { Lease } from './slot-types'

const URLS = ['http://10.0.0.1:80', 'http://10.0.0.2:80', 'http://10.0.0.3:80', 'http://10.0.0.4:80']

type Action =
  | { kind: 'members'; present: boolean[] }
  | { kind: 'down'; replica: number; down: boolean }
  | { kind: 'tick' }
  | { kind: 'request'; conversation: number; session: boolean }
  | { kind: 'release'; index: number }
  | { kind: 'fail'; index: number }

const action: fc.Arbitrary<Action> = fc.oneof(
  fc.record({
    kind: fc.constant('members' as const),
    present: fc.array(fc.boolean(), { minLength: 4, maxLength: 4 }),
  }),
  fc.record({ kind: fc.constant('down' as const), replica: fc.nat({ max: 3 }), down: fc.boolean() }),
  fc.record({ kind: fc.constant('tick' as const) }),
  fc.record({
    kind: fc.constant('request' as const),
    conversation: fc.nat({ max: 5 }),
    session: fc.boolean(),
  }),
  fc.record({ kind: fc.constant('release' as const), index: fc.nat() }),
  fc.record({ kind: fc.constant('fail' as const), index: fc.nat() }),
)

function setup() {
  const clock = createTestClock()
  const down = new Set<string>()
  let members: UpstreamMember[] = URLS.slice(0, 2).map((u, i) => ({ id: `r${i}`, base: new URL(u) }))
  const exited = new Promise<UpstreamExit>(() => undefined)
  const handle: UpstreamHandle = {
    base: new URL(URLS[0]!),
    exited,
    stop: async () => undefined,
    describe: () => ({}),
    logs: () => [],
    members: async () => members,
  }
  const driver: SlotDriver = {
    warmupTimeoutMs: 5_000,
    needsPull: async () => false,
    pull: async (m) => m,
    start: async () => handle,
    probe: async (h) => !down.has(h.base.origin),
  }
  const slot = new Slot({
    config: { ...defaultSlotConfig('primary')!, restart: 'no' },
    driver,
    bus: createEventBus<SvcEvents>(),
    clock,
    probeIntervalMs: 10,
    replicaProbeMs: 100,
    replicaDownAfter: 1_000, // never offline here: the property is about the choice
  })
  const setMembers = (present: boolean[]) => {
    members = URLS.flatMap((u, i) => (present[i] ? [{ id: `r${i}`, base: new URL(u) }] : []))
  }
  return { clock, slot, down, setMembers }
}

/** Conversation `c`'s prompt at `turn`: its own long first block, then short ones. */
function prompt(c: number, turn: number, session: boolean): RouteHints {
  const blocks = Array.from({ length: turn + 1 }, (_, k) => c * 1_000 + k)
  return { blocks, ends: blocks.map((_, k) => 1_000 + 50 * k), ...(session ? { session: `s${c}` } : {}) }
}

describe('a slot routing across changing replicas', () => {
  it('sends requests only to healthy listed replicas, and turns where their conversation is', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(action, { maxLength: 60 }), async (actions) => {
        const { clock, slot, down, setMembers } = setup()
        await clock.run(slot.load(model('m')))
        const leases: Lease[] = []
        const turns = new Map<number, number>()
        const home = new Map<number, string>()
        for (const a of actions) {
          if (a.kind === 'members') setMembers(a.present)
          else if (a.kind === 'down') {
            if (a.down) down.add(new URL(URLS[a.replica]!).origin)
            else down.delete(new URL(URLS[a.replica]!).origin)
          } else if (a.kind === 'tick') {
            await clock.advance(100)
            // A replica seen to leave forgets what it held, even if it comes back.
            const listed = new Set(slot.snapshot().replicas?.map((r) => r.url))
            for (const [c, url] of home) if (!listed.has(url)) home.delete(c)
          } else if (a.kind === 'release' || a.kind === 'fail') {
            const lease = leases.splice(a.index % Math.max(1, leases.length), 1)[0]
            if (a.kind === 'fail') lease?.fail?.('unreachable')
            lease?.release()
          } else {
            const before = slot.snapshot().replicas ?? []
            const healthy = before.filter((r) => r.healthy)
            const turn = turns.get(a.conversation) ?? 0
            const hints = prompt(a.conversation, turn, a.session)
            const lease = await slot.acquire({ timeoutMs: 10, hints }).catch(() => undefined)
            if (!lease) {
              expect(healthy).toEqual([]) // refused only when no replica is healthy
              continue
            }
            leases.push(lease)
            const chosen = before.find((r) => r.url === lease.base.origin)
            expect(chosen?.healthy).toBe(true)
            // The previous turn's replica, still healthy and within the slack, takes this one.
            const previous = before.find((r) => r.url === home.get(a.conversation))
            const least = Math.min(...healthy.map((r) => r.inflight))
            if (turn > 0 && previous?.healthy && previous.inflight <= least + 2 && !a.session) {
              expect(lease.base.origin).toBe(previous.url)
            }
            turns.set(a.conversation, turn + 1)
            home.set(a.conversation, lease.base.origin)
          }
        }
      }),
      { numRuns: 300 },
    )
  })
})
