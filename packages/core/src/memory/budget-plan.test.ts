import { describe, expect, it } from 'vitest'
import { formatBytes, type MemoryHolder, planFit, shortfallMessage } from './budget-plan'

const MiB = 1024 ** 2

function holder(slot: string, mib: number, more: Partial<MemoryHolder> = {}): MemoryHolder {
  return {
    slot,
    model: `${slot}-model`,
    state: 'idle',
    estimateBytes: mib * MiB,
    estimate: 'test',
    usedBytes: null,
    usedBy: null,
    chargedBytes: mib * MiB,
    lastUsedAt: null,
    inflight: 0,
    evictable: true,
    ...more,
  }
}

describe('the memory budget plan', () => {
  it('lets a load in when it fits beside what is held', () => {
    expect(
      planFit({ budgetBytes: 100 * MiB, holders: [holder('a', 60)], needBytes: 40 * MiB, mayEvict: false }),
    ).toEqual({
      fits: true,
      evict: [],
    })
  })

  it('refuses a load that does not fit when the slot may not evict', () => {
    expect(
      planFit({ budgetBytes: 100 * MiB, holders: [holder('a', 60)], needBytes: 41 * MiB, mayEvict: false }),
    ).toEqual({
      fits: false,
      usedBytes: 60 * MiB,
      freeBytes: 40 * MiB,
    })
  })

  it('evicts the least recently used idle slots, only as many as needed', () => {
    const holders = [
      holder('recent', 30, { lastUsedAt: 3_000 }),
      holder('old', 30, { lastUsedAt: 1_000 }),
      holder('never', 30, { lastUsedAt: null }),
    ]
    expect(planFit({ budgetBytes: 100 * MiB, holders, needBytes: 65 * MiB, mayEvict: true })).toEqual({
      fits: true,
      evict: ['never', 'old'],
    })
  })

  it('never evicts a slot with requests in flight, and evicts nothing when eviction cannot make room', () => {
    const holders = [
      holder('busy', 60, { state: 'serving', inflight: 1, evictable: false }),
      holder('idle', 30),
    ]
    expect(planFit({ budgetBytes: 100 * MiB, holders, needBytes: 60 * MiB, mayEvict: true })).toMatchObject({
      fits: false,
    })
    expect(planFit({ budgetBytes: 100 * MiB, holders, needBytes: 40 * MiB, mayEvict: true })).toEqual({
      fits: true,
      evict: ['idle'],
    })
  })

  it('charges the larger of the estimate and the real use', () => {
    const grown = holder('a', 10, { usedBytes: 70 * MiB, chargedBytes: 70 * MiB })
    expect(
      planFit({ budgetBytes: 100 * MiB, holders: [grown], needBytes: 40 * MiB, mayEvict: false }).fits,
    ).toBe(false)
  })

  it('refuses nothing on a device of unknown size', () => {
    expect(
      planFit({ budgetBytes: null, holders: [holder('a', 1e6)], needBytes: 1e9, mayEvict: false }).fits,
    ).toBe(true)
  })

  it('names what holds the memory and how to make room', () => {
    const text = shortfallMessage({
      slot: 'embed',
      model: 'tiny',
      needBytes: 48 * MiB,
      estimate: 'weights 1 MiB + KV cache 47 MiB (ctx 65536)',
      deviceLabel: 'system memory',
      budgetBytes: 50 * MiB,
      usedBytes: 48 * MiB,
      holders: [holder('primary', 48, { state: 'serving', inflight: 1, evictable: false })],
      mayEvict: false,
      file: 'slots/embed.toml',
    })
    expect(text).toBe(
      'slot "embed" cannot load "tiny": it needs ~48.0 MiB (weights 1 MiB + KV cache 47 MiB (ctx 65536)) and system memory has 2.0 MiB free of a 50.0 MiB budget; held by slot "primary" (primary-model, 48.0 MiB, serving, 1 request in flight). Unload a slot, or set evict = "idle" in slots/embed.toml to unload idle ones first.',
    )
  })

  it('formats sizes in binary units', () => {
    expect([
      formatBytes(512),
      formatBytes(1536),
      formatBytes(6.4 * 1024 ** 3),
      formatBytes(150 * MiB),
    ]).toEqual(['512 B', '1.5 KiB', '6.4 GiB', '150 MiB'])
  })
})
