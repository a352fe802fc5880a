/**
 * The server's request listener: inference endpoints (`/v1/chat/completions`, …) go straight to the
 * dispatcher on Node's raw request/response — the measured hot path — and everything else (the
 * management API, `/v1/models`, errors for unknown routes) to the Hono app. Inference requests are
 * counted by the dispatcher (`svc_v1_requests_total`, `svc_v1_request_duration_seconds`), not in
 * `svc_http_requests_total`, which covers the Hono routes.
 */
import { randomUUID } from 'node:crypto'
import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http'
import type { SvcError } from '@svc/core'
import { lazyListener } from '@svc/core/node'
import { type Dispatcher, requestPath, writeError } from '@svc/dispatcher'
import type { AppType } from './app'
import type { Cors } from './cors'
import { isOllamaPath, type OllamaHandler } from './ollama/ollama-handler'

const REQUEST_ID = /^[\w\-=]{1,255}$/

export interface HttpHandlerOptions {
  app: AppType
  dispatcher: Dispatcher
  /**
   * Checks the caller before the dispatcher runs (auth); returns false after writing the refusal.
   * Absent: everyone passes (auth off).
   */
  guard?: (req: IncomingMessage, res: ServerResponse, requestId: string) => Promise<boolean> | boolean
  /**
   * Refuses a request before anything else runs, CORS preflights included (the host rule): the
   * refusal is written as the error body. Absent: every request goes on.
   */
  refuse?: (req: IncomingMessage) => SvcError | undefined
  /** CORS for `/v1/*` (preflights answered here, before auth; headers on every answer). Absent: none. */
  cors?: Cors
  /** The Ollama API's paths (`ollama/ollama-handler.ts`): answered, auth included, in Ollama's shape. */
  ollama?: OllamaHandler
}

export function createHttpHandler(options: HttpHandlerOptions): RequestListener {
  // Hono's Node adapter brings Node's fetch (its undici), http2, tls, zlib and worker_threads with it:
  // ~5 MiB of an idle process. It is loaded with the first request Hono answers (the relayed ones on
  // the hot path below never need it).
  const hono = lazyListener(async () => {
    const { getRequestListener } = await import('@hono/node-server')
    return getRequestListener(options.app.fetch)
  })
  const { cors } = options
  return (req, res) => {
    const refused = options.refuse?.(req)
    if (refused) {
      writeError(res, refused, requestIdOf(req))
      return
    }
    const path = requestPath(req.url)
    if (cors?.covers(path)) {
      if (cors.preflight(req, res)) return
      cors.decorate(req, res)
    }
    const ollama = options.ollama && isOllamaPath(path) ? options.ollama : undefined
    if (!ollama && !options.dispatcher.handles(path)) {
      hono(req, res)
      return
    }
    const requestId = requestIdOf(req)
    if (ollama) {
      void ollama(req, res, requestId)
      return
    }
    // A cached bearer token is checked synchronously: no promise between it and the dispatcher.
    const passed = options.guard ? options.guard(req, res, requestId) : true
    if (passed === true) void options.dispatcher.handle(req, res, requestId)
    else if (passed !== false)
      void passed.then((ok) => (ok ? options.dispatcher.handle(req, res, requestId) : undefined))
  }
}

/** The client's `X-Request-Id` when well formed, else a new one. */
export function requestIdOf(req: IncomingMessage): string {
  const inbound = req.headers['x-request-id']
  return typeof inbound === 'string' && REQUEST_ID.test(inbound) ? inbound : randomUUID()
}
