import { createServer } from 'node:http'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { createHostRule, createProxyTrust, thisMachineHostnames } from '@svc/auth'
import { closeHttp, httpUrl, type Logger, lazyListener, SVC_VERSION, serveHttp } from '@svc/core/node'
import { createChatApp } from './app'
import { createGenerations } from './chat/generations'
import type { ChatEnv } from './env'
import { TOKEN_NEEDS_PROXY } from './http/identity'
import { checkChatStore, openChatStore } from './store/chat-store'
import { createFileBytes } from './store/file-bytes'
import { createSvcApi } from './upstream/svc-api'
import { createVoiceRelay } from './voice/realtime-relay'

/** The Vite build next to this app (`apps/chat/dist`). */
export const DEFAULT_STATIC_DIR = fileURLToPath(new URL('../../dist', import.meta.url))

/** Files linked to no message are removed after this long (uploads never sent, edited-away images). */
const ORPHAN_AGE_MS = 24 * 60 * 60 * 1000

export interface StartChatOptions {
  env: ChatEnv
  logger: Logger
}

export interface ChatServer {
  url: string
  /** The app's route table (method, path pattern), for tests that attack every route. */
  routes: readonly { method: string; path: string }[]
  /** Stops taking connections, ends running answers (marked interrupted), closes the database. */
  stop(): Promise<void>
}

/**
 * Checks the store (a database written by a newer svc is refused here, at start), builds the app and
 * listens. The database itself is opened on first use; answers a dead process left `streaming` are
 * marked `interrupted` and orphaned files swept then, before any request reads it. Rejects when the
 * port is taken or the database cannot be used.
 */
export async function startChat(options: StartChatOptions): Promise<ChatServer> {
  const { env, logger } = options
  let sweeper: NodeJS.Timeout | undefined
  const store = openChatStore(env.dataDir, {
    onOpen(opened) {
      logger.debug('chat database opened', { file: opened.db.name })
      const interrupted = opened.messages.markInterrupted()
      if (interrupted > 0)
        logger.warn('answers cut short by the last stop marked interrupted', { interrupted })
      void sweep()
      sweeper = setInterval(sweep, 60 * 60 * 1000)
      sweeper.unref()
    },
  })
  const files = createFileBytes({
    dir: join(env.dataDir, 'files'),
    repo: () => store.files,
    quotaBytes: env.quotaBytes,
  })
  const sweep = () =>
    files.sweep(ORPHAN_AGE_MS).catch((error: unknown) => logger.warn('file sweep failed', { error }))
  checkChatStore(store)

  const generations = createGenerations()
  const fromProxy = createProxyTrust({ trustedProxies: env.trustedProxies, proxySecret: env.proxySecret })
  const app = createChatApp({
    store,
    files,
    api: createSvcApi({ baseUrl: env.apiUrl, token: env.apiToken }),
    generations,
    trustedHeader: env.trustedHeader,
    fromProxy,
    hosts: createHostRule({ allowed: env.allowedHosts, machine: thisMachineHostnames }),
    ...(env.proxySecret ? { proxyVouches: fromProxy } : {}),
    staticDir: env.staticDir ?? DEFAULT_STATIC_DIR,
    logger,
    version: SVC_VERSION,
  })
  const server = createServer()
  // Hono's Node adapter brings Node's fetch (its undici), http2, tls, zlib and worker_threads with it:
  // ~5 MiB of an idle process. It is loaded with the first request.
  const listener = lazyListener(async () => {
    const { getRequestListener } = await import('@hono/node-server')
    return getRequestListener(app.fetch)
  })
  const address = await serveHttp(server, {
    port: env.port,
    host: env.host,
    maxConnections: env.maxConnections,
    handler: listener,
    onUpgrade: createVoiceRelay({ app, apiUrl: env.apiUrl, apiToken: env.apiToken, logger }),
  })
  const wildcard = address.address === '0.0.0.0' || address.address === '::'
  const url = httpUrl(wildcard ? '127.0.0.1' : address.address, address.port)
  logger.info('svc chat listening', {
    url,
    host: address.address,
    port: address.port,
    auth: env.trustedHeader ? `trusted header ${env.trustedHeader}` : 'off (one local user)',
    api: env.apiUrl,
    apiToken: env.apiToken ? 'set' : 'unset',
    quotaMb: env.quotaBytes / (1024 * 1024),
    database: join(env.dataDir, 'chat.db'),
  })
  if (env.apiToken && !env.trustedHeader)
    logger.error('every request will be refused', { why: TOKEN_NEEDS_PROXY })

  let stopping: Promise<void> | undefined
  return {
    url,
    routes: app.routes,
    stop() {
      stopping ??= (async () => {
        clearInterval(sweeper)
        generations.stopAll('shutdown')
        // Streams end as their answers are saved; give them a moment, then cut what is left.
        const deadline = Date.now() + 5_000
        const saved = (async () => {
          while (generations.size > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20))
        })()
        await closeHttp(server, { graceMs: 5_000, until: saved })
        store.close()
      })()
      return stopping
    },
  }
}
