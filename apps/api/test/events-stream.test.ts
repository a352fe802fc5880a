/**
 * `/api/events` must cost a bounded amount per client — no timer per event, no
 * queue that grows for a client that reads slowly (it gets a `resync` snapshot instead).
 */
import { createServer, request, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { setImmediate as tick } from 'node:timers/promises'
import { getRequestListener } from '@hono/node-server'
import type { SlotProgressEvent } from '@svc/core'
import { afterEach, describe, expect, it } from 'vitest'
import type { AppDeps } from '../src/deps'
import { testApp } from './helpers'

interface Sse {
  event: string
  data: string
}

let server: Server | undefined
afterEach(async () => {
  server?.closeAllConnections()
  await new Promise((r) => server?.close(r))
  server = undefined
})

async function serve(): Promise<{ url: string; deps: AppDeps }> {
  const { app, deps } = await testApp()
  server = createServer(getRequestListener(app.fetch))
  await new Promise<void>((r) => server!.listen(0, '127.0.0.1', r))
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, deps }
}

/** Opens `/api/events` and parses events as they come; `pause()` stops reading from the socket. */
function subscribe(url: string) {
  const events: Sse[] = []
  let buffer = ''
  let res: import('node:http').IncomingMessage | undefined
  const opened = new Promise<void>((resolve, reject) => {
    const req = request(`${url}/api/events`, (r) => {
      res = r
      r.setEncoding('utf8')
      r.on('data', (chunk: string) => {
        buffer += chunk
        let end = buffer.indexOf('\n\n')
        while (end >= 0) {
          const block = buffer.slice(0, end)
          buffer = buffer.slice(end + 2)
          const event = /^event: (.*)$/m.exec(block)?.[1]
          const data = /^data: (.*)$/m.exec(block)?.[1]
          if (event && data !== undefined) events.push({ event, data })
          end = buffer.indexOf('\n\n')
        }
      })
      resolve()
    })
    req.on('error', reject)
    req.end()
  })
  return {
    events,
    opened,
    pause: () => res?.pause(),
    resume: () => res?.resume(),
    close: () => res?.destroy(),
  }
}

/** A test app on a real port (`serve`) with one `/api/events` client that has received its snapshot. */
async function serveSubscribed() {
  const { url, deps } = await serve()
  const client = subscribe(url)
  await client.opened
  await until(() => client.events.some((e) => e.event === 'snapshot'))
  return { deps, client }
}

const progress = (done: number): SlotProgressEvent => ({
  slot: 'primary',
  model: 'm',
  done,
  total: 1_000_000,
  at: Date.now(),
})

async function until(check: () => boolean, ms = 10_000): Promise<void> {
  const deadline = Date.now() + ms
  while (!check()) {
    if (Date.now() > deadline) throw new Error('timed out')
    await new Promise((r) => setTimeout(r, 10))
  }
}

const timers = () => process.getActiveResourcesInfo().filter((r) => r === 'Timeout').length

describe('GET /api/events', () => {
  it('keeps one timer per client however many events it sends', async () => {
    const { deps, client } = await serveSubscribed()
    const before = timers()
    for (let i = 1; i <= 2_000; i++) {
      deps.slots.bus.emit('slot.progress', progress(i))
      await tick()
      await tick()
    }
    await until(() => client.events.filter((e) => e.event === 'slot.progress').length === 2_000)
    expect(timers() - before).toBeLessThan(20)
    client.close()
  })

  it('sends every event to a client that keeps up, and never a resync', async () => {
    const { deps, client } = await serveSubscribed()
    for (let i = 1; i <= 3_000; i++) {
      deps.slots.bus.emit('slot.progress', progress(i))
      if (i % 50 === 0) await new Promise((r) => setTimeout(r, 5))
    }
    await until(() => client.events.filter((e) => e.event === 'slot.progress').length === 3_000)
    expect(client.events.some((e) => e.event === 'resync')).toBe(false)
    client.close()
  })

  it('gives a client that fell behind a resync snapshot instead of an ever longer queue', async () => {
    const { deps, client } = await serveSubscribed()
    client.pause()
    const total = 60_000
    for (let i = 1; i <= total; i++) {
      deps.slots.bus.emit('slot.progress', progress(i))
      if (i % 200 === 0) await tick()
    }
    client.resume()
    await until(() => client.events.some((e) => e.event === 'resync'), 20_000)
    const resync = client.events.find((e) => e.event === 'resync')!
    const body = JSON.parse(resync.data) as { slots: { name: string; state: string }[] }
    expect(body.slots.map((s) => s.name)).toContain('primary')
    // Some events were never sent: they were dropped in favour of the resync.
    await new Promise((r) => setTimeout(r, 200))
    expect(client.events.filter((e) => e.event === 'slot.progress').length).toBeLessThan(total)
    client.close()
  }, 60_000)

  it('starts with a comment line and the snapshot, with each slot and its config error', async () => {
    const { url } = await serve()
    const res = await fetch(`${url}/api/events`)
    const reader = res.body!.getReader()
    let text = ''
    while (!text.includes('event: snapshot')) text += new TextDecoder().decode((await reader.read()).value)
    await reader.cancel()
    expect(text.startsWith(': connected\n\n')).toBe(true)
    const data = JSON.parse(/data: (.*)/.exec(text)![1]!) as { slots: Record<string, unknown>[] }
    expect(data.slots.find((s) => s.name === 'primary')).toMatchObject({
      state: 'offline',
      configError: null,
    })
  })
})
