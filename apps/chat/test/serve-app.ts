/** The chat app served in-process on 127.0.0.1:0 (tests that need a socket, not the whole process). */

import { mkdtemp, rm } from 'node:fs/promises'
import { request } from 'node:http'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createAdaptorServer } from '@hono/node-server'
import { createProxyTrust } from '@svc/auth'
import { silentLogger } from '@svc/core/node'
import { createChatApp } from '../src/server/app'
import { createGenerations } from '../src/server/chat/generations'
import { openChatStore } from '../src/server/store/chat-store'
import { createFileBytes } from '../src/server/store/file-bytes'
import { createSvcApi } from '../src/server/upstream/svc-api'

export interface ServedApp extends AsyncDisposable {
  url: string
  port: number
  /** Every route of the app, as `[method, path pattern]` (middleware excluded). */
  routes: [string, string][]
}

export interface ServeOptions {
  trustedHeader?: string
  proxySecret?: string
  apiUrl?: string
  apiToken?: string
}

export async function serveChatApp(options: ServeOptions = {}): Promise<ServedApp> {
  const dir = await mkdtemp(join(tmpdir(), 'svc-chat-app-'))
  const store = openChatStore(dir)
  const app = createChatApp({
    store,
    files: createFileBytes({ dir: join(dir, 'files'), repo: () => store.files }),
    api: createSvcApi({ baseUrl: options.apiUrl ?? 'http://127.0.0.1:9', token: options.apiToken }),
    generations: createGenerations(),
    trustedHeader: options.trustedHeader?.toLowerCase(),
    fromProxy: createProxyTrust({ proxySecret: options.proxySecret }),
    staticDir: undefined,
    logger: silentLogger,
    version: 'test',
  })
  const server = createAdaptorServer({ fetch: app.fetch })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const port = (server.address() as AddressInfo).port
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    routes: app.routes.filter((r) => r.method !== 'ALL').map((r): [string, string] => [r.method, r.path]),
    async [Symbol.asyncDispose]() {
      await new Promise<void>((resolve) => server.close(() => resolve()))
      store.close()
      await rm(dir, { recursive: true, force: true })
    },
  }
}

export interface Sent {
  status: number
  headers: Record<string, string | string[] | undefined>
  text: string
  json<T = { error: { code: string; message: string; param: string | null } }>(): T
}

/**
 * One HTTP request with full control: the source address (`from`, e.g. 127.0.0.2 to be "not the
 * proxy") and any header, as a client or a misbehaving proxy would send it.
 */
export function send(
  port: number,
  options: {
    method?: string
    path: string
    headers?: Record<string, string>
    body?: string | Buffer
    from?: string
  },
): Promise<Sent> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port,
        method: options.method ?? 'GET',
        path: options.path,
        headers: options.headers,
        ...(options.from ? { localAddress: options.from } : {}),
      },
      (res) => {
        const chunks: Buffer[] = []
        res.on('data', (c: Buffer) => chunks.push(c))
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString()
          resolve({ status: res.statusCode ?? 0, headers: res.headers, text, json: () => JSON.parse(text) })
        })
      },
    )
    req.on('error', reject)
    req.end(options.body)
  })
}
