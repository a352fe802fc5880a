/**
 * `@svc/core/node`'s serveHttp/closeHttp with connections an `onUpgrade` handler took over (the API's
 * Realtime sessions, the chat app's voice relay): the stop ends them within its grace period — with
 * the handler's goodbye where it registered one, else by destroying them — and the peer sees the end.
 * A real `node:http` server on 127.0.0.1 port 0 and a raw client socket that speaks the upgrade by
 * hand, so the peer can be one that never answers.
 */
import { createServer, type Server } from 'node:http'
import { connect, type Socket } from 'node:net'
import { closeHttp, serveHttp, type UpgradeStop } from '@svc/core/node'
import { afterEach, describe, expect, it } from 'vitest'

type Handler = (req: unknown, socket: Socket, head: Buffer, stop: UpgradeStop) => void

/** A server whose upgrade handler switches protocols (101) and then runs `after` on the socket. */
async function upgradingServer(after: (socket: Socket, stop: UpgradeStop) => void) {
  const server = createServer()
  const onUpgrade: Handler = (_req, socket, _head, stop) => {
    socket.write('HTTP/1.1 101 Switching Protocols\r\nupgrade: line\r\nconnection: upgrade\r\n\r\n')
    after(socket, stop)
  }
  const { port } = await serveHttp(server, {
    port: 0,
    host: '127.0.0.1',
    maxConnections: 16,
    handler: (_req, res: { end(body: string): void }) => res.end('plain'),
    onUpgrade,
  })
  return { server, port }
}

/** A client that upgrades and then only listens: what it read, and when its socket closed. */
async function upgradedClient(port: number) {
  const socket = connect(port, '127.0.0.1')
  let text = ''
  const closed = new Promise<number>((resolve) => socket.once('close', () => resolve(Date.now())))
  socket.on('error', () => {})
  socket.on('data', (chunk: Buffer) => {
    text += chunk
  })
  socket.write('GET /line HTTP/1.1\r\nhost: 127.0.0.1\r\nconnection: upgrade\r\nupgrade: line\r\n\r\n')
  await expect.poll(() => text).toContain('101 Switching Protocols')
  return { read: () => text, closed }
}

describe('closeHttp with upgraded connections', () => {
  const servers: Server[] = []
  afterEach(() => {
    for (const s of servers.splice(0)) s.closeAllConnections()
  })

  it('destroys a connection whose handler registered no goodbye at once, not after the grace period', async () => {
    const { server, port } = await upgradingServer(() => {})
    servers.push(server)
    const client = await upgradedClient(port)
    const started = Date.now()
    await closeHttp(server, { graceMs: 10_000 })
    expect(Date.now() - started).toBeLessThan(2_000)
    expect((await client.closed) - started).toBeLessThan(2_000)
  })

  it('says the handler’s goodbye first and waits for the peer to close', async () => {
    const { server, port } = await upgradingServer((socket, stop) => {
      // The protocol's goodbye: a last line, then the server ends its side; the peer closes its own.
      stop.onStop(() => socket.end('going away\n'))
    })
    servers.push(server)
    const client = await upgradedClient(port)
    const started = Date.now()
    await closeHttp(server, { graceMs: 10_000 })
    expect(Date.now() - started).toBeLessThan(2_000)
    await client.closed
    expect(client.read()).toMatch(/going away\n$/)
  })

  it('cuts a peer that never answers the goodbye when the grace period ends', async () => {
    const { server, port } = await upgradingServer((socket, stop) => {
      stop.onStop(() => socket.write('going away\n')) // and waits for the peer, which never answers
    })
    servers.push(server)
    const client = await upgradedClient(port)
    const started = Date.now()
    await closeHttp(server, { graceMs: 800 })
    const took = Date.now() - started
    expect(took).toBeGreaterThanOrEqual(700)
    expect(took).toBeLessThan(3_000)
    expect((await client.closed) - started).toBeLessThan(3_000)
    expect(client.read()).toMatch(/going away\n$/)
  })

  it('waits for `until` and the upgraded connections both, within the grace period', async () => {
    const { server, port } = await upgradingServer((socket, stop) => {
      stop.onStop(() => setTimeout(() => socket.end('bye\n'), 300))
    })
    servers.push(server)
    const client = await upgradedClient(port)
    const started = Date.now()
    await closeHttp(server, { graceMs: 10_000, until: Promise.resolve() })
    expect(Date.now() - started).toBeGreaterThanOrEqual(250)
    expect(Date.now() - started).toBeLessThan(3_000)
    await client.closed
    expect(client.read()).toMatch(/bye\n$/)
  })
})
