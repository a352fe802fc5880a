/**
 * The live store against a real SSE server: it applies the stream, shows "reconnecting" when the
 * stream drops, comes back with backoff, and replaces its state with the fresh snapshot.
 */
import { createServer, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import type { SlotSnapshot } from '@svc/core'
import { afterEach, describe, expect, it } from 'vitest'
import type { LiveState } from './live-state'
import { createLiveStore } from './live-store'

const slot = (name: string, state: SlotSnapshot['state'] = 'offline'): SlotSnapshot => ({
  name,
  provider: 'llm',
  backend: 'cpu',
  runtime: 'process',
  state,
  model: null,
  inflight: 0,
  lastError: null,
  since: 0,
  progress: null,
  restarts: 0,
  upstream: null,
  replicas: null,
})

const cleanups: (() => Promise<void> | void)[] = []
afterEach(async () => {
  for (const c of cleanups.splice(0)) await c()
})

async function sseServer(onConnect: (res: ServerResponse, n: number) => void) {
  let n = 0
  const server = createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/event-stream' })
    res.write(': connected\n\n')
    onConnect(res, ++n)
  })
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
  cleanups.push(() => {
    server.closeAllConnections()
    return new Promise<void>((r) => server.close(() => r()))
  })
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/events`
}

function until(store: ReturnType<typeof createLiveStore>, test: (s: LiveState) => boolean, ms = 5000) {
  return new Promise<LiveState>((resolve, reject) => {
    if (test(store.get())) return resolve(store.get())
    const timer = setTimeout(() => reject(new Error(`timed out; last: ${JSON.stringify(store.get())}`)), ms)
    const off = store.subscribe((s) => {
      if (!test(s)) return
      clearTimeout(timer)
      off()
      resolve(s)
    })
  })
}

const send = (res: ServerResponse, event: string, data: unknown) =>
  res.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`)

describe('the live store', () => {
  it('applies events, reconnects after a drop and takes the fresh snapshot', async () => {
    const url = await sseServer((res, n) => {
      if (n === 1) {
        send(res, 'snapshot', { slots: [slot('primary'), slot('gone')] })
        send(res, 'slot.transition', { slot: 'primary', from: 'offline', to: 'starting', model: 'm', at: 5 })
        setTimeout(() => res.destroy(), 100) // the stream drops
      } else {
        send(res, 'snapshot', { slots: [slot('primary', 'ready')] })
      }
    })
    const store = createLiveStore(url)
    const seen: string[] = []
    store.subscribe((s) => {
      if (seen.at(-1) !== s.connection) seen.push(s.connection)
    })
    store.start()
    cleanups.push(() => store.stop())
    const first = await until(store, (s) => s.slots[0]?.state === 'starting')
    expect(first).toMatchObject({ connection: 'open', generation: 1 })
    expect(first.slots.map((s) => s.name)).toEqual(['primary', 'gone'])
    const second = await until(store, (s) => s.generation === 2)
    // the snapshot replaced everything: the slot that disappeared is gone, the state is the server's
    expect(second.slots).toEqual([slot('primary', 'ready')])
    expect(seen).toEqual(['open', 'reconnecting', 'open'])
  })

  it('treats resync like a snapshot', async () => {
    const url = await sseServer((res) => {
      send(res, 'snapshot', { slots: [slot('a'), slot('b')] })
      send(res, 'resync', { slots: [slot('b', 'idle')] })
    })
    const store = createLiveStore(url)
    store.start()
    cleanups.push(() => store.stop())
    const s = await until(store, (x) => x.generation === 2)
    expect(s.slots).toEqual([slot('b', 'idle')])
  })

  it('says when the server refuses the caller, and keeps trying', async () => {
    let tries = 0
    const server = createServer((_req, res) => {
      tries++
      res.writeHead(401, { 'content-type': 'application/json' }).end('{"error":{"code":"auth.required"}}')
    })
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
    cleanups.push(() => new Promise<void>((r) => server.close(() => r())))
    const store = createLiveStore(`http://127.0.0.1:${(server.address() as AddressInfo).port}/`)
    store.start()
    cleanups.push(() => store.stop())
    await until(store, (s) => s.connection === 'unauthorized')
    await new Promise((r) => setTimeout(r, 700))
    expect(tries).toBeGreaterThanOrEqual(2)
  })
})
