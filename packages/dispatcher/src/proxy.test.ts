/**
 * The hop over a kept-alive connection that the upstream has closed: servers close idle or
 * much-used connections (llama-server's HTTP library does both), and a request that reuses one at
 * that moment fails with ECONNRESET before anything reached the upstream. Real sockets here: svc's
 * side is a node:http server calling `forward`, the upstream a TCP server that answers the first
 * request on a connection and resets the connection at the second — the same failure, on cue.
 */
import { createServer as createHttpServer, type Server } from 'node:http'
import { createServer as createTcpServer, type Socket, type Server as TcpServer } from 'node:net'
import { Pool } from 'undici'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ClientWatch } from './client-watch'
import { type ForwardBody, forward } from './proxy'

const listen = (server: Server | TcpServer) =>
  new Promise<number>((resolve) =>
    server.listen(0, '127.0.0.1', () => resolve((server.address() as { port: number }).port)),
  )

describe('forward over a kept-alive connection the upstream closed', () => {
  let upstream: TcpServer
  let svc: Server
  let svcUrl = ''
  let connections = 0
  const sockets = new Set<Socket>()
  let pool: Pool

  beforeAll(async () => {
    upstream = createTcpServer((socket) => {
      connections++
      sockets.add(socket)
      let answered = 0
      socket.on('data', () => {
        if (answered++ === 0) {
          socket.write(
            'HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 11\r\nConnection: keep-alive\r\n\r\n{"ok":true}',
          )
        } else socket.resetAndDestroy() // as a server that had closed the connection
      })
      socket.on('error', () => {})
      socket.on('close', () => sockets.delete(socket))
    })
    const port = await listen(upstream)
    pool = new Pool(`http://127.0.0.1:${port}`, { connections: 1 })
    svc = createHttpServer((req, res) => {
      const chunks: Buffer[] = []
      req.on('data', (c: Buffer) => chunks.push(c))
      req.on('end', () => {
        const body: ForwardBody = { kind: 'buffer', data: Buffer.concat(chunks) }
        void forward({
          url: new URL(`http://127.0.0.1:${port}/v1/chat/completions`),
          headers: { 'content-type': 'application/json', 'content-length': String(body.data.length) },
          body,
          res,
          client: new ClientWatch(res),
          timeoutMs: 5000,
          who: 'slot primary',
          pool,
          requestId: 'test',
        })
      })
    })
    svcUrl = `http://127.0.0.1:${await listen(svc)}`
  })

  afterAll(async () => {
    await pool.destroy()
    for (const socket of sockets) socket.destroy()
    await new Promise((r) => svc.close(r))
    await new Promise((r) => upstream.close(r))
  })

  it('sends the request again on a new connection instead of answering 502', async () => {
    const post = () => fetch(`${svcUrl}/`, { method: 'POST', body: '{"model":"primary"}' })
    const first = await post()
    expect(first.status).toBe(200)
    expect(connections).toBe(1)
    const second = await post() // reuses the kept-alive connection, which the upstream resets
    expect(second.status, await second.clone().text()).toBe(200)
    expect(await second.json()).toEqual({ ok: true })
    expect(connections).toBe(2)
  })
})
