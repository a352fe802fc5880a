/**
 * The server's request listener: inference endpoints (`/v1/chat/completions`, …) go straight to the
 * dispatcher on Node's raw request/response — the measured hot path — and everything else (the
 * management API, `/v1/models`, errors for unknown routes) to the Hono app.
 */
import { randomUUID } from 'node:crypto'
import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http'
import { getRequestListener } from '@hono/node-server'
import type { Dispatcher } from '@svc/dispatcher'
import type { AppType } from './app'
import type { ApiMetrics } from './metrics'

const REQUEST_ID = /^[\w\-=]{1,255}$/

export interface HttpHandlerOptions {
  app: AppType
  dispatcher: Dispatcher
  metrics: ApiMetrics
  /**
   * Checks the caller before the dispatcher runs (auth); returns false after writing the refusal.
   * Absent: everyone passes (auth off).
   */
  guard?: (req: IncomingMessage, res: ServerResponse, requestId: string) => Promise<boolean> | boolean
}

export function createHttpHandler(options: HttpHandlerOptions): RequestListener {
  const hono = getRequestListener(options.app.fetch)
  const { httpRequests, httpDuration } = options.metrics
  return (req, res) => {
    const path = (req.url ?? '/').split('?')[0]!
    if (!options.dispatcher.handles(path)) {
      void hono(req, res)
      return
    }
    const started = performance.now()
    const inbound = req.headers['x-request-id']
    const requestId = typeof inbound === 'string' && REQUEST_ID.test(inbound) ? inbound : randomUUID()
    res.once('close', () => {
      const labels = { method: req.method ?? 'POST', route: path, status: String(res.statusCode) }
      httpRequests.inc(labels)
      httpDuration.observe(labels, (performance.now() - started) / 1000)
    })
    const run = async () => {
      if (options.guard && !(await options.guard(req, res, requestId))) return
      await options.dispatcher.handle(req, res, requestId)
    }
    void run()
  }
}
