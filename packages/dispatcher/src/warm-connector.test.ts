/**
 * The ready connection (warm-connector.ts) against a real HTTP server on 127.0.0.1 that closes the
 * connection after every answer, as llama-server does after a streamed one. What a user would
 * notice: the next request does not wait for a connect, a connection the server dropped is never
 * used, and an upstream about to stop is not left holding a connection open.
 */
import { createServer, type Server } from 'node:http'
import type { Socket } from 'node:net'
import { Pool } from 'undici'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { UpstreamPools } from './upstream-pools'
import { WarmConnector } from './warm-connector'

interface Conn {
  socket: Socket
  acceptedAt: number
  requests: number
  closed: boolean
}

let server: Server
let origin = ''
let conns: Conn[] = []
/** ms after which the server drops a connection that has carried no request (0: never). */
let idleDropMs = 0

beforeEach(async () => {
  conns = []
  idleDropMs = 0
  server = createServer((req, res) => {
    const conn = conns.find((c) => c.socket === req.socket)!
    conn.requests++
    req.resume()
    req.on('end', () => {
      res.setHeader('content-type', 'text/event-stream')
      res.setHeader('connection', 'close') // as llama-server's streamed answers end: the connection goes
      res.write('data: {"n":1}\n\n')
      res.end('data: [DONE]\n\n')
    })
  })
  server.on('connection', (socket) => {
    const conn: Conn = { socket, acceptedAt: performance.now(), requests: 0, closed: false }
    conns.push(conn)
    socket.on('close', () => {
      conn.closed = true
    })
    if (idleDropMs > 0)
      setTimeout(() => {
        if (conn.requests === 0) socket.destroy()
      }, idleDropMs)
  })
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
  origin = `http://127.0.0.1:${(server.address() as { port: number }).port}`
})

afterEach(async () => {
  server.closeAllConnections()
  await new Promise((r) => server.close(r))
})

/** One streamed request; returns when it began (performance.now) and the connection that carried it. */
async function send(pool: Pool): Promise<{ began: number; conn: Conn }> {
  const began = performance.now()
  const before = new Set(conns.filter((c) => c.requests > 0))
  const res = await pool.request({ path: '/v1/chat/completions', method: 'POST', body: '{}' })
  expect(res.statusCode).toBe(200)
  expect(await res.body.text()).toContain('[DONE]')
  const conn = conns.find((c) => c.requests > 0 && !before.has(c))
  if (!conn) throw new Error('no connection carried the request')
  return { began, conn }
}

const until = async (what: () => boolean, ms = 2_000) => {
  const deadline = Date.now() + ms
  while (!what()) {
    if (Date.now() > deadline) throw new Error('timed out waiting')
    await new Promise((r) => setTimeout(r, 5))
  }
}

describe('a connection made ahead of need', () => {
  it('carries the next request on a connection opened before that request began', async () => {
    const pools = new UpstreamPools()
    const pool = pools.get(new URL(`${origin}/v1/chat/completions`)) as Pool
    try {
      await send(pool)
      for (let i = 0; i < 5; i++) {
        await until(() => conns.some((c) => c.requests === 0 && !c.closed))
        const { began, conn } = await send(pool)
        expect(conn.acceptedAt).toBeLessThan(began)
      }
      // One connection per request, and at most one waiting: nothing piles up on the engine.
      expect(conns.filter((c) => c.requests === 0 && !c.closed).length).toBeLessThanOrEqual(1)
      expect(conns.every((c) => c.requests <= 1)).toBe(true)
    } finally {
      pools.destroy()
    }
  })

  it('never sends on a ready connection the server dropped: the request takes a new one', async () => {
    idleDropMs = 30
    const pools = new UpstreamPools()
    const pool = pools.get(new URL(`${origin}/v1/chat/completions`)) as Pool
    try {
      await send(pool)
      await until(() => conns.length === 2 && conns[1]!.closed)
      const { began, conn } = await send(pool)
      expect(conn.acceptedAt).toBeGreaterThan(began)
    } finally {
      pools.destroy()
    }
  })

  it('closes a ready connection that waited too long rather than use it', async () => {
    const warm = new WarmConnector(50)
    const pool = new Pool(origin, { connect: warm.connect })
    try {
      await send(pool)
      await until(() => conns.length === 2)
      const stale = conns[1]!
      await new Promise((r) => setTimeout(r, 100))
      const { began, conn } = await send(pool)
      expect(conn).not.toBe(stale)
      expect(conn.acceptedAt).toBeGreaterThan(began)
      await until(() => stale.closed)
      expect(stale.requests).toBe(0)
    } finally {
      warm.close()
      await pool.destroy()
    }
  })

  it('forget(origin) closes the ready connection at once (an upstream about to stop)', async () => {
    const pools = new UpstreamPools()
    const url = new URL(`${origin}/v1/chat/completions`)
    try {
      await send(pools.get(url) as Pool)
      await until(() => conns.some((c) => c.requests === 0 && !c.closed))
      const ready = conns.find((c) => c.requests === 0)!
      pools.forget(origin)
      await until(() => ready.closed, 1_000)
      // A later request to the same origin gets a new pool and is answered.
      await send(pools.get(url) as Pool)
    } finally {
      pools.destroy()
    }
  })
})
