import { describe, expect, it } from 'vitest'
import { createEventBus } from './event-bus'

type Events = { ping: { n: number }; pong: string }

describe('event bus', () => {
  it('delivers payloads to subscribers of the type and to onAny, in order', () => {
    const bus = createEventBus<Events>()
    const seen: string[] = []
    bus.on('ping', (p) => seen.push(`ping ${p.n}`))
    bus.onAny((type) => seen.push(`any ${String(type)}`))
    bus.emit('ping', { n: 1 })
    bus.emit('pong', 'x')
    expect(seen).toEqual(['ping 1', 'any ping', 'any pong'])
  })

  it('stops delivering after unsubscribe', () => {
    const bus = createEventBus<Events>()
    let count = 0
    const off = bus.on('ping', () => count++)
    bus.emit('ping', { n: 1 })
    off()
    off()
    bus.emit('ping', { n: 2 })
    expect(count).toBe(1)
  })

  it('keeps delivering to other handlers when one throws', () => {
    const errors: unknown[] = []
    const bus = createEventBus<Events>({ onError: (e) => errors.push(e) })
    let delivered = false
    bus.on('ping', () => {
      throw new Error('boom')
    })
    bus.on('ping', () => {
      delivered = true
    })
    bus.emit('ping', { n: 1 })
    expect(delivered).toBe(true)
    expect(errors).toHaveLength(1)
  })

  it('once resolves on the first matching payload and rejects on abort', async () => {
    const bus = createEventBus<Events>()
    const p = bus.once('ping', (x) => x.n > 1)
    bus.emit('ping', { n: 1 })
    bus.emit('ping', { n: 2 })
    await expect(p).resolves.toEqual({ n: 2 })

    const ac = new AbortController()
    const q = bus.once('ping', undefined, ac.signal)
    ac.abort(new Error('gone'))
    await expect(q).rejects.toThrow('gone')
  })
})
