/**
 * Found by the soak: llama-server closes kept-alive connections, and a request sent on one just as
 * it closes fails with ECONNRESET although it never reached the upstream. svc sends such a request
 * once more on a new connection instead of answering 502.
 */
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { writeSvcConfig } from '@svc/testing'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type AuthServer, loadPlaceholder, send, startAuthServer } from './auth-harness'

describe('an upstream that closes kept-alive connections', () => {
  let upstream: Server
  let server: AuthServer
  let connections = 0
  beforeAll(async () => {
    // Answers the first request of each connection; a second one on the same connection finds it
    // closed (the race, made certain).
    upstream = createServer((req, res) => {
      const socket = req.socket as typeof req.socket & { served?: number }
      socket.served = (socket.served ?? 0) + 1
      if (socket.served > 1) {
        socket.destroy()
        return
      }
      req.resume()
      res.writeHead(200, { 'content-type': 'application/json' })
      res.end(
        JSON.stringify({
          id: 'x',
          object: 'chat.completion',
          choices: [{ index: 0, message: { role: 'assistant', content: 'ok' } }],
        }),
      )
    })
    upstream.on('connection', () => connections++)
    await new Promise<void>((r) => upstream.listen(0, '127.0.0.1', r))
    const url = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`
    server = await startAuthServer({ SVC_AUTH_ENABLED: '0' }, async ({ configDir }) => {
      await writeSvcConfig(configDir, {
        slots: { flaky: `provider = "llm"\nruntime = "remote"\nurl = "${url}"\n` },
      })
    })
    await loadPlaceholder(server, 'flaky')
  }, 30_000)
  afterAll(async () => {
    await server?.[Symbol.asyncDispose]()
    upstream?.close()
  })

  it('gets every request answered, retrying one that met a closed connection', async () => {
    const before = connections
    for (let i = 0; i < 10; i++) {
      const reply = await send(server.url, {
        method: 'POST',
        path: '/v1/chat/completions',
        body: JSON.stringify({ model: 'flaky', messages: [{ role: 'user', content: `hi ${i}` }] }),
      })
      expect(reply.status, reply.text).toBe(200)
    }
    expect(connections - before).toBeGreaterThanOrEqual(10)
  })
})
