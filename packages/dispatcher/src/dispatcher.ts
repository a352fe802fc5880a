/**
 * The OpenAI front door for inference. `handle(req, res)` reads as its table of contents:
 *
 * 1. read the request (`read-request.ts`: the body as its endpoint says, validated);
 * 2. resolve `model` to a slot or a hosted upstream (`slot-request.ts`' `targetFor`: the caller's model
 *    allowance, then `resolve.ts`; the in-process caller, call.ts, takes the same steps);
 * 3. send it to the slot (`send-to-slot.ts`: lease, translate or stream, other replicas) or to the
 *    hosted upstream (`send-hosted.ts`).
 *
 * It always answers (errors as the JSON error body) and never throws; each request leaves one
 * `DispatchRecord` for metrics and usage.
 *
 * It works on Node's raw request/response on purpose: this is the hot path `pnpm bench` measures
 * (docs/architecture.md): raw streams in, undici's `dispatch` over kept-alive connections out
 * (`proxy.ts`), with nothing on the way that a relayed request does not need.
 */
import type { IncomingMessage, ServerResponse } from 'node:http'
import { SvcError } from '@svc/core'
import { type Caller, createCaller } from './call'
import { ClientWatch } from './client-watch'
import type { DispatcherOptions, DispatchRecord } from './dispatch-types'
import { endpointFor, requestPath } from './endpoints'
import { type Exchange, hopSender } from './exchange'
import { readRequest } from './read-request'
import { writeError } from './respond'
import { sendToHosted } from './send-hosted'
import { sendToSlot } from './send-to-slot'
import { targetFor } from './slot-request'
import { formUnits, requestUnits } from './units'
import { UpstreamPools } from './upstream-pools'

export type { DispatcherOptions, DispatchRecord, SlotRoute, StartedRequest } from './dispatch-types'

export interface Dispatcher {
  /** Whether `path` is an inference endpoint this dispatcher answers. */
  handles(path: string): boolean
  handle(req: IncomingMessage, res: ServerResponse, requestId: string): Promise<void>
  /** The same path for a request made inside svc (a translating surface such as the Ollama API). */
  call: Caller
  /**
   * Closes svc's idle connections to `origins` (`http://127.0.0.1:41234`): called before those
   * upstreams are stopped, whose shutdown would otherwise wait on them (upstream-pools.ts).
   */
  forget(origins: readonly string[]): void
  close(): void
}

export function createDispatcher(options: DispatcherOptions): Dispatcher {
  const pools = new UpstreamPools()
  const queueTimeoutMs = options.queueTimeoutMs ?? 120_000
  const upstreamTimeoutMs = options.upstreamTimeoutMs ?? 600_000
  const caps = {
    maxJson: options.maxJsonBytes ?? 32 * 1024 * 1024,
    maxUpload: options.maxUploadBytes ?? 25 * 1024 * 1024,
  }
  const context = { options, queueTimeoutMs, upstreamTimeoutMs, send: hopSender(pools) }

  async function handle(req: IncomingMessage, res: ServerResponse, requestId: string): Promise<void> {
    const started = performance.now()
    const path = requestPath(req.url)
    const spec = endpointFor(path)!
    const client = new ClientWatch(res)
    const record: DispatchRecord = { route: path, slot: '-', status: 0, outcome: 'error', seconds: 0 }
    const exchange: Exchange = { req, res, requestId, client, record, started }
    try {
      if (req.method !== 'POST') {
        res.setHeader('allow', 'POST')
        throw new SvcError('method.not_allowed', `use POST for ${path}`)
      }
      const request = await readRequest(req, spec, caps)
      const units = request.json
        ? requestUnits(spec.endpoint, request.json)
        : request.form && formUnits(spec.endpoint, request.form)
      if (units) record.units = units
      // Most requests name what a slot holds: resolved at once, no promise to wait on.
      const found = targetFor(options, spec, request.model, req)
      const target = found instanceof Promise ? await found : found
      record.slot = target.kind === 'slot' ? target.slot.name : `upstream:${target.upstream.name}`
      options.onStart?.(exchange, request.model, request.raw)
      if (target.kind === 'slot') await sendToSlot(context, exchange, target, spec, request)
      else await sendToHosted(context, exchange, target, spec, request)
    } catch (error) {
      // A client that went away aborts what was running for it: expected, not a bug.
      if (!(error instanceof SvcError) && !client.gone)
        options.onUnexpected?.(error, { requestId, route: path })
      if (client.gone && !res.headersSent) {
        record.outcome = 'client-gone'
        record.status = 499
        res.destroy()
      } else {
        record.status = writeError(res, error, requestId)
        record.outcome = 'error'
      }
    } finally {
      record.seconds = (performance.now() - started) / 1000
      options.observe?.(record, req)
    }
  }

  return {
    handles: (path) => endpointFor(path) !== undefined,
    handle,
    call: createCaller({ ...options, queueTimeoutMs, upstreamTimeoutMs }),
    forget: (origins) => {
      for (const origin of origins) pools.forget(origin)
    },
    close: () => pools.destroy(),
  }
}
