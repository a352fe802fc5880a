import { describe, expect, it } from 'vitest'
import { createTestClock } from '../../test/slot/test-clock'
import { model } from '../../test/slot/test-driver'
import { createEventBus } from '../event-bus'
import type { SlotReplicasEvent, SlotTransitionEvent, SvcEvents } from '../events'
import { defaultSlotConfig, type SlotConfig } from '../slot-config'
import type { SlotDriver, UpstreamExit, UpstreamHandle, UpstreamMember } from '../slot-driver'
import type { RouteHints } from './replica-routing'
import { Slot } from './slot'

/** A handle with replicas whose membership and health the test sets. */
function replicated(urls: string[]) {
  const down = new Set<string>()
  let members: UpstreamMember[] = urls.map((u) => ({ id: new URL(u).host, base: new URL(u) }))
  let resolveExit!: (e: UpstreamExit) => void
  const exited = new Promise<UpstreamExit>((r) => {
    resolveExit = r
  })
  const handle: UpstreamHandle = {
    base: members[0]!.base,
    exited,
    stop: async () => resolveExit({ code: 0, signal: null, reason: 'detached' }),
    describe: () => ({ replicas: members.length }),
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
  return {
    driver,
    down,
    /** The members now; `ids` keeps an id at another address (default: each URL's host). */
    setMembers: (list: string[], ids?: string[]) => {
      members = list.map((u, i) => ({ id: ids?.[i] ?? new URL(u).host, base: new URL(u) }))
    },
  }
}

function setup(urls: string[], routing: Partial<SlotConfig['routing']> = {}) {
  const clock = createTestClock()
  const bus = createEventBus<SvcEvents>()
  const events: SlotTransitionEvent[] = []
  bus.on('slot.transition', (e) => events.push(e))
  const replicaEvents: SlotReplicasEvent[] = []
  bus.on('slot.replicas', (e) => replicaEvents.push(e))
  const r = replicated(urls)
  const slot = new Slot({
    config: {
      ...defaultSlotConfig('primary')!,
      restart: 'no',
      routing: { ...defaultSlotConfig('primary')!.routing, ...routing },
    },
    driver: r.driver,
    bus,
    clock,
    probeIntervalMs: 10,
    replicaProbeMs: 100,
    replicaDownAfter: 3,
  })
  return { clock, slot, events, replicaEvents, ...r }
}

const A = 'http://10.0.0.1:8080'
const B = 'http://10.0.0.2:8080'

describe('a slot with replicas', () => {
  it('is ready while one replica is, and sends each request to the one with the fewest in flight', async () => {
    const { clock, slot, down } = setup([A, B])
    down.add(B)
    await clock.run(slot.load(model('m')))
    expect(slot.snapshot().state).toBe('ready')
    expect(slot.snapshot().replicas?.map((r) => [r.url, r.healthy])).toEqual([
      [A, true],
      [B, false],
    ])
    down.delete(B)
    await clock.advance(100) // the next round finds B healthy
    const leases = [await slot.acquire({ timeoutMs: 10 }), await slot.acquire({ timeoutMs: 10 })]
    expect(leases.map((l) => l.base.origin).sort()).toEqual([A, B])
    leases.find((l) => l.base.origin === A)?.release()
    const third = await slot.acquire({ timeoutMs: 10 })
    expect(third.base.origin).toBe(A) // B still has one in flight
    expect(slot.snapshot().replicas?.map((r) => r.inflight)).toEqual([1, 1])
  })

  it('takes a replica a request could not reach out of rotation until its probe passes', async () => {
    const { clock, slot, replicaEvents } = setup([A, B])
    await clock.run(slot.load(model('m')))
    const first = await slot.acquire({ timeoutMs: 10 })
    const failed = first.base.origin
    first.fail?.('ECONNREFUSED')
    first.release()
    for (let i = 0; i < 4; i++) {
      const lease = await slot.acquire({ timeoutMs: 10 })
      expect(lease.base.origin).not.toBe(failed)
      lease.release()
    }
    expect(slot.snapshot().replicas?.find((r) => r.url === failed)).toMatchObject({
      healthy: false,
      error: 'ECONNREFUSED',
    })
    await clock.advance(100) // its probe passes: back in rotation
    expect(slot.snapshot().replicas?.every((r) => r.healthy)).toBe(true)
    // Each change was an event (no URLs in it), and a round that changed nothing was none.
    expect(replicaEvents.map((e) => e.replicas.map((r) => r.healthy))).toEqual([
      failed === A ? [false, true] : [true, false],
      [true, true],
    ])
    expect(JSON.stringify(replicaEvents)).not.toContain('http')
    await clock.advance(300)
    expect(replicaEvents).toHaveLength(2)
  })

  it('closes the leases of a replica that left the set, and routes to the new one', async () => {
    const { clock, slot, setMembers } = setup([A, B])
    await clock.run(slot.load(model('m')))
    const onA = await slot.acquire({ timeoutMs: 10 })
    setMembers([B, 'http://10.0.0.3:8080'])
    await clock.advance(100)
    expect(slot.snapshot().replicas?.map((r) => r.url)).toEqual([B, 'http://10.0.0.3:8080'])
    expect(slot.snapshot().inflight).toBe(0) // the lease on the gone replica no longer counts
    onA.release() // and releasing it later changes nothing
    expect(slot.snapshot().inflight).toBe(0)
  })

  it('counts a member that comes back at another address as a new replica', async () => {
    const { clock, slot, setMembers } = setup([A, B])
    await clock.run(slot.load(model('m')))
    const onB = await slot.acquire({ timeoutMs: 10, hints: { blocks: [1], ends: [10] } })
    const onA = await slot.acquire({ timeoutMs: 10, hints: { blocks: [2], ends: [10] } })
    expect([onA.base.origin, onB.base.origin].sort()).toEqual([A, B])
    const moved = 'http://10.0.0.2:9090' // B restarted on another port, under its id
    setMembers([A, moved], ['10.0.0.1:8080', '10.0.0.2:8080'])
    await clock.advance(100)
    expect(slot.snapshot().replicas?.map((r) => r.url)).toEqual([A, moved])
    expect(slot.snapshot().inflight).toBe(1) // B's lease no longer counts
  })

  it('goes offline naming each replica once none has answered for three rounds', async () => {
    const { clock, slot, down, events } = setup([A, B])
    await clock.run(slot.load(model('m')))
    down.add(A)
    down.add(B)
    await clock.advance(200)
    expect(slot.snapshot().state).toBe('ready') // two rounds: not yet
    await expect(slot.acquire({ timeoutMs: 10 })).rejects.toMatchObject({ code: 'upstream.unavailable' })
    await clock.advance(100)
    expect(slot.snapshot()).toMatchObject({ state: 'offline', replicas: null })
    expect(events.at(-1)?.error).toBe(
      `no replica answers its health check (${A}: did not pass its health check; ${B}: did not pass its health check)`,
    )
  })

  it('measures each replica health probe round trip', async () => {
    const { clock, slot } = setup([A])
    await clock.run(slot.load(model('m')))
    const [replica] = slot.snapshot().replicas ?? []
    expect(replica).toMatchObject({ id: '10.0.0.1:8080', healthy: true, latencyMs: 0, error: null })
    expect(replica?.checkedAt).toBe(clock.now())
  })
})

/** A conversation's prompt after `turns` turns: its own 1,000-char system block, then 50-char messages. */
function prompt(conversation: number, turns: number, session?: string): RouteHints {
  const blocks = Array.from({ length: 2 * turns }, (_, k) => conversation * 100 + k)
  return { blocks, ends: blocks.map((_, k) => 1_000 + 50 * k), ...(session ? { session } : {}) }
}

describe('routing by cache across replicas', () => {
  it("sends a conversation's next turns where its first went, and counts the hits", async () => {
    const { clock, slot } = setup([A, B])
    await clock.run(slot.load(model('m')))
    const first = await Promise.all([1, 2].map((c) => slot.acquire({ timeoutMs: 10, hints: prompt(c, 1) })))
    for (const l of first) l.release()
    expect(first.map((l) => l.base.origin).sort()).toEqual([A, B]) // new prompts: least loaded, in turns
    for (const turns of [2, 3]) {
      for (const c of [1, 2]) {
        const lease = await slot.acquire({ timeoutMs: 10, hints: prompt(c, turns) })
        expect(lease.base.origin).toBe(first[c - 1]!.base.origin)
        lease.release()
      }
    }
    expect(slot.snapshot().replicas?.map((r) => [r.routed, r.prefixHits, r.hitRate, r.lastRoute])).toEqual([
      [{ prefix: 2, session: 0, least_loaded: 1 }, 2, 2 / 3, 'prefix'],
      [{ prefix: 2, session: 0, least_loaded: 1 }, 2, 2 / 3, 'prefix'],
    ])
  })

  it('sends the next turn to the least loaded replica when its own is overloaded', async () => {
    const { clock, slot } = setup([A, B], { slack: 1 })
    await clock.run(slot.load(model('m')))
    const home = await slot.acquire({ timeoutMs: 10, hints: prompt(1, 1) })
    const busy = [home, await slot.acquire({ timeoutMs: 10, hints: prompt(1, 2) })]
    expect(busy.map((l) => l.base.origin)).toEqual([home.base.origin, home.base.origin]) // 1 ≤ 0 + slack
    const spilled = await slot.acquire({ timeoutMs: 10, hints: prompt(1, 3) }) // 2 > 0 + slack
    expect(spilled.base.origin).not.toBe(home.base.origin)
    expect(slot.snapshot().replicas?.find((r) => r.url === spilled.base.origin)?.lastRoute).toBe(
      'least_loaded',
    )
  })

  it('pins a session to its replica, and moves it once that replica leaves the rotation', async () => {
    const { clock, slot } = setup([A, B])
    await clock.run(slot.load(model('m')))
    const first = await slot.acquire({ timeoutMs: 10, hints: prompt(1, 1, 's1') })
    first.release()
    for (const c of [2, 3, 4]) {
      const lease = await slot.acquire({ timeoutMs: 10, hints: prompt(c, 1, 's1') }) // other prompts
      expect(lease.base.origin).toBe(first.base.origin)
      lease.release()
    }
    first.fail?.('ECONNREFUSED')
    const moved = await slot.acquire({ timeoutMs: 10, hints: prompt(1, 2, 's1') })
    expect(moved.base.origin).not.toBe(first.base.origin)
    moved.release()
    await clock.advance(100) // the failed one is healthy again: the session stays where it went
    const after = await slot.acquire({ timeoutMs: 10, hints: prompt(5, 1, 's1') })
    expect([after.base.origin, slot.snapshot().replicas?.every((r) => r.healthy)]).toEqual([
      moved.base.origin,
      true,
    ])
  })

  it('ignores the hints when the slot routes by least load', async () => {
    const { clock, slot } = setup([A, B], { policy: 'least-loaded' })
    await clock.run(slot.load(model('m')))
    const served: string[] = []
    for (let i = 0; i < 4; i++) {
      const lease = await slot.acquire({ timeoutMs: 10, hints: prompt(1, i + 1, 's1') })
      served.push(lease.base.origin)
      lease.release()
    }
    expect(new Set(served)).toEqual(new Set([A, B]))
    expect(slot.snapshot().replicas?.map((r) => r.routed.least_loaded)).toEqual([2, 2])
  })
})
