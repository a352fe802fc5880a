import { describe, expect, it } from 'vitest'
import { createTestClock } from '../../test/slot/test-clock'
import { model } from '../../test/slot/test-driver'
import { createEventBus } from '../event-bus'
import type { SlotReplicasEvent, SlotTransitionEvent, SvcEvents } from '../events'
import { defaultSlotConfig } from '../slot-config'
import type { SlotDriver, UpstreamExit, UpstreamHandle, UpstreamMember } from '../slot-driver'
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
    setMembers: (list: string[]) => {
      members = list.map((u) => ({ id: new URL(u).host, base: new URL(u) }))
    },
  }
}

function setup(urls: string[]) {
  const clock = createTestClock()
  const bus = createEventBus<SvcEvents>()
  const events: SlotTransitionEvent[] = []
  bus.on('slot.transition', (e) => events.push(e))
  const replicaEvents: SlotReplicasEvent[] = []
  bus.on('slot.replicas', (e) => replicaEvents.push(e))
  const r = replicated(urls)
  const slot = new Slot({
    config: { ...defaultSlotConfig('primary')!, restart: 'no' },
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
