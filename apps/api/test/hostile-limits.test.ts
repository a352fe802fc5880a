/**
 * What a client that does not stop gets: after a 413 svc stops reading the body and closes the
 * connection (it does not keep paying for an upload it refused); past the caps on connections and
 * on live streams (`/api/events`, `logs?follow=1`) it is answered 503 `server.busy`, not queued.
 */
import { mkdtemp, rm } from 'node:fs/promises'
import { request } from 'node:http'
import { connect, type Socket } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { silentLogger } from '@svc/core/node'
import { sendOversizedUpload } from '@svc/testing'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { readServeEnv } from '../src/env'
import { type SvcServer, startSvc } from '../src/server'

let svc: SvcServer
let root: string
const MAX_CONNECTIONS = 6

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'svc-limits-'))
  const env = readServeEnv({
    SVC_HOST: '127.0.0.1',
    SVC_PORT: '0',
    SVC_CONFIG_DIR: join(root, 'c'),
    SVC_STATE_DIR: join(root, 's'),
    SVC_MAX_CONNECTIONS: String(MAX_CONNECTIONS),
    SVC_MAX_STREAMS: '2',
  })
  svc = await startSvc({ env, logger: silentLogger })
})
afterAll(async () => {
  await svc?.stop()
  await rm(root, { recursive: true, force: true })
})

const json = { 'Content-Type': 'application/json' }
const form = { 'Content-Type': 'multipart/form-data; boundary=b' }

describe('after a 413', () => {
  it.each([
    ['/v1/chat/completions', json, 'chunked'],
    ['/v1/chat/completions', json, 40 * 1024 * 1024 * 1024],
    ['/v1/audio/transcriptions', form, 'chunked'],
    ['/v1/audio/transcriptions', form, 40 * 1024 * 1024 * 1024],
    ['/api/slots/primary/load', json, 'chunked'],
    ['/api/slots/primary/load', json, 40 * 1024 * 1024 * 1024],
    ['/v1/audio/voices', form, 'chunked'],
  ] as const)(
    'POST %s stops reading an endless body (%s, framing %s) and closes',
    async (path, headers, framing) => {
      const reply = await sendOversizedUpload(svc.url, { path, headers, framing })
      expect(reply.status, reply.head).toBe(413)
      expect(JSON.parse(reply.body).error.code).toBe('request.too_large')
      expect(reply.head.toLowerCase()).toContain('connection: close')
      // Closed after a linger of about a second; the bound leaves room for a busy machine and still
      // tells "closes" from "reads on until the sender gives up" (20 s).
      expect(reply.closedAfterMs, `still reading ${reply.sent} bytes later`).toBeLessThan(10_000)
    },
  )
})

/** Opens a stream and resolves with its status once the head is in; `close` ends it. */
function openStream(
  path: string,
): Promise<{ status: number; retryAfter?: string; body: Promise<string>; close(): void }> {
  return new Promise((resolve, reject) => {
    const req = request(`${svc.url}${path}`, { agent: false }, (res) => {
      let text = ''
      res.setEncoding('utf8')
      res.on('error', () => {}) // `close` cuts it: that is the point
      const body = new Promise<string>((done) => {
        res.on('data', (d: string) => {
          text += d
        })
        res.on('end', () => done(text))
        res.on('close', () => done(text))
      })
      resolve({
        status: res.statusCode ?? 0,
        retryAfter: res.headers['retry-after'],
        body,
        close: () => req.destroy(),
      })
    })
    req.on('error', (error) => (req.destroyed ? undefined : reject(error)))
    req.end()
  })
}

describe('caps', () => {
  it('refuses a third live stream 503 server.busy with Retry-After, and takes one again once a place is free', async () => {
    const first = await openStream('/api/events')
    const second = await openStream('/api/slots/primary/logs?follow=1')
    expect([first.status, second.status]).toEqual([200, 200])
    for (const path of ['/api/events', '/api/slots/primary/logs?follow=1']) {
      const refused = await openStream(path)
      expect(refused.status, path).toBe(503)
      expect(refused.retryAfter).toBeTruthy()
      expect(JSON.parse(await refused.body).error).toMatchObject({
        code: 'server.busy',
        type: 'server_error',
      })
    }
    // A plain read of the log is no stream: it is answered while the streams are full.
    expect((await fetch(`${svc.url}/api/slots/primary/logs`)).status).toBe(200)
    first.close()
    await expect
      .poll(
        async () => {
          const again = await openStream('/api/events')
          again.close()
          return again.status
        },
        { timeout: 10_000 },
      )
      .toBe(200)
    second.close()
  })

  it('answers connections past SVC_MAX_CONNECTIONS 503 server.busy, and serves again once they close', async () => {
    const idle: Socket[] = await Promise.all(
      Array.from({ length: MAX_CONNECTIONS }, () => {
        const { hostname, port } = new URL(svc.url)
        return new Promise<Socket>((resolve) => {
          const s = connect({ host: hostname, port: Number(port) }, () => resolve(s))
        })
      }),
    )
    // A new connection each (fetch would reuse one opened before the idle ones).
    const busy = await openStream('/api/status')
    expect(busy.status).toBe(503)
    expect(busy.retryAfter).toBeTruthy()
    expect(JSON.parse(await busy.body).error.code).toBe('server.busy')
    for (const s of idle) s.destroy()
    await expect
      .poll(async () => (await fetch(`${svc.url}/api/status`, { headers: { connection: 'close' } })).status, {
        timeout: 10_000,
      })
      .toBe(200)
  })
})
