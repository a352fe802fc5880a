/**
 * The OpenAI front door for inference: `handle(req, res)` validates the body, resolves `model` to
 * a slot or a hosted upstream, takes a slot lease (waiting while the slot loads, bounded), and
 * streams the request through. It always answers (errors as the JSON error body) and never throws.
 *
 * It works on Node's raw request/response on purpose: this is the hot path `pnpm bench` measures
 * (docs/architecture.md), and piping raw streams into a keep-alive `http.request` is what keeps the
 * hop near Caddy's cost.
 */
import type { IncomingMessage, ServerResponse } from 'node:http'
import { type Lease, type ProviderRoute, type SlotManager, SvcError } from '@svc/core'
import { AgentPool } from './agents'
import { type Caller, createCaller } from './call'
import { ClientWatch } from './client-watch'
import { endpointFor } from './endpoints'
import { hostedUrl } from './hosted'
import { loadingWriter } from './loading-notice'
import { prependFields } from './multipart-fields'
import { rewriteModel, upstreamHeaders, upstreamUrl, writeResponse } from './outbound'
import { type ForwardBody, type ForwardResult, forward, type NormaliseBody } from './proxy'
import { readRequest } from './read-request'
import { resolveTarget, type Target } from './resolve'
import { writeError } from './respond'
import { translates } from './translates'
import { type RequestUnits, requestUnits } from './units'
import type { HostedUpstream } from './upstreams'
import type { Usage } from './usage'
import { refuseImagesWithoutVision } from './vision'

/** What the dispatcher needs of a slot's provider: the request side of the provider contract. */
export type SlotRoute = ProviderRoute

export interface DispatchRecord {
  route: string
  slot: string
  status: number
  outcome: 'ok' | 'client-gone' | 'upstream-died' | 'error'
  /** Request arrival → response finished (s). */
  seconds: number
  /** Upstream request sent → first response byte (s); undefined when no upstream was reached. */
  ttfbSeconds?: number
  /** svc's own time before the upstream request went out: body, validation, resolution, lease (s). */
  overheadSeconds?: number
  usage?: Usage
  /** The model that answered (the lease's, or a hosted upstream's ref); absent before resolution. */
  model?: string
  /** What the request asked for beyond tokens (speech characters, images): see `requestUnits`. */
  units?: RequestUnits
}

/** One client request as the dispatcher carries it: both ends, its id, and what it records. */
interface Exchange {
  req: IncomingMessage
  res: ServerResponse
  requestId: string
  client: ClientWatch
  record: DispatchRecord
  /** `performance.now()` when it arrived. */
  started: number
}

/** One hop to an upstream. */
interface Hop {
  target: Target
  url: URL
  body: ForwardBody
  timeoutMs: number
  /** A hosted upstream's API key (sent as the bearer). */
  auth?: string
  retryUnreachable?: boolean
  normaliseBody?: NormaliseBody
}

/** Replicas one request may try when the first cannot be reached. */
const MAX_REPLICA_TRIES = 3

export interface DispatcherOptions {
  slots: SlotManager
  routeFor(slot: string): SlotRoute
  upstreams: () => readonly HostedUpstream[]
  isKnownModel(id: string): Promise<boolean>
  /** Bounded wait for a loading slot (SVC_QUEUE_TIMEOUT). Default 120 s. */
  queueTimeoutMs?: number
  /** Until upstream response headers (model load excluded). Default 600 s. */
  upstreamTimeoutMs?: number
  maxJsonBytes?: number
  maxUploadBytes?: number
  /** Called once per request when it is done; `req` lets the app find what it attached (who asked). */
  observe?: (record: DispatchRecord, req: IncomingMessage) => void
  /**
   * Asked once `model` resolved to a hosted upstream, before its key is used: a refusal answers the
   * request (the app's browser rule: with auth off, no page of another site spends a hosted key).
   */
  refuseHosted?: (req: IncomingMessage) => SvcError | undefined
  /**
   * Called with an error that is not an `SvcError` (a bug: answered 500 `internal.error` without
   * its details), so the app can log it with the request id.
   */
  onUnexpected?: (error: unknown, context: { requestId: string; route: string }) => void
}

export interface Dispatcher {
  /** Whether `path` is an inference endpoint this dispatcher answers. */
  handles(path: string): boolean
  handle(req: IncomingMessage, res: ServerResponse, requestId: string): Promise<void>
  /** The same path for a request made inside svc (a translating surface such as the Ollama API). */
  call: Caller
  close(): void
}

export function createDispatcher(options: DispatcherOptions): Dispatcher {
  const agents = new AgentPool()
  const queueTimeoutMs = options.queueTimeoutMs ?? 120_000
  const upstreamTimeoutMs = options.upstreamTimeoutMs ?? 600_000
  const maxJson = options.maxJsonBytes ?? 32 * 1024 * 1024
  const maxUpload = options.maxUploadBytes ?? 25 * 1024 * 1024

  async function handle(req: IncomingMessage, res: ServerResponse, requestId: string): Promise<void> {
    const started = performance.now()
    const path = (req.url ?? '/').split('?')[0]!
    const spec = endpointFor(path)!
    const client = new ClientWatch(res)
    const record: DispatchRecord = { route: path, slot: '-', status: 0, outcome: 'error', seconds: 0 }
    const x: Exchange = { req, res, requestId, client, record, started }
    let lease: Lease | undefined
    try {
      if (req.method !== 'POST') {
        res.setHeader('allow', 'POST')
        throw new SvcError('method.not_allowed', `use POST for ${path}`)
      }
      const { model, body, json, raw } = await readRequest(req, spec, { maxJson, maxUpload })
      if (json) {
        const units = requestUnits(spec.endpoint, json)
        if (units) record.units = units
      }
      const target = await resolveTarget(model, spec, options)
      record.slot = target.kind === 'slot' ? target.slot.name : `upstream:${target.upstream.name}`
      if (target.kind === 'slot') {
        const route = options.routeFor(target.slot.name)
        if (!route.endpoints.includes(spec.endpoint) && !route.translate?.endpoints.includes(spec.endpoint)) {
          throw new SvcError(
            'request.invalid',
            `slot "${target.slot.name}" does not serve ${spec.endpoint}`,
            { param: 'model' },
          )
        }
        // Images for a model that cannot see them: refused before waiting on a load, and again
        // below for the model the lease really got (a swap may have happened meanwhile). A remote
        // slot's upstream loads its own files (a projector or not): svc cannot tell, the remote judges.
        const remote = target.slot.snapshot().runtime === 'remote'
        const seeing = spec.endpoint === 'chat' && json && !remote ? json : undefined
        const carried = json && route.prepareBody?.(spec.endpoint, json)
        const planned = target.slot.currentModel()
        if (seeing && planned) refuseImagesWithoutVision(seeing, planned, target.slot.name)
        // The signal is a getter: acquire reads it only when it has to wait for a loading slot.
        const notice = loadingWriter(res, json, requestId)
        lease = await options.slots
          .acquire(target.slot.name, {
            ...(target.ref ? { ref: target.ref } : {}),
            get signal() {
              return client.signal
            },
            timeoutMs: queueTimeoutMs,
            ...(notice ? { onLoading: notice.update } : {}),
          })
          .finally(() => notice?.stop())
        record.model = lease.model.id
        if (seeing) refuseImagesWithoutVision(seeing, lease.model, target.slot.name)
        if (
          json &&
          route.translate &&
          (await translates(route.translate, spec.endpoint, lease.model, json))
        ) {
          const response = await route.translate.handle({
            endpoint: spec.endpoint,
            body: json,
            rawBody: raw?.toString('utf8') ?? '',
            base: lease.base,
            model: lease.model,
            signal: client.signal,
          })
          record.status = await writeResponse(res, response, requestId)
          record.outcome = 'ok'
          return
        }
        const upstreamModel = route.upstreamModel?.({ model: lease.model })
        const fields = route.multipartFields?.(spec.endpoint)
        const out = fields
          ? prependFields(body, fields, req.headers['content-type'])
          : rewriteModel(body, carried ?? json, upstreamModel, carried !== undefined)
        // A replica that cannot be reached leaves the rotation and the request goes to another one.
        for (let attempt = 1; ; attempt++) {
          const result = await send(x, {
            target,
            url: upstreamUrl(lease.base, route.requestPath(spec.endpoint)),
            // The upstream's own key, never the client's credentials (upstreamHeaders drops those).
            ...(lease.apiKey ? { auth: lease.apiKey } : {}),
            body: out,
            timeoutMs: upstreamTimeoutMs,
            retryUnreachable: lease.fail !== undefined && attempt < MAX_REPLICA_TRIES,
            ...(route.normaliseBody ? { normaliseBody: route.normaliseBody } : {}),
          })
          if (result.outcome !== 'unreachable') break
          lease.fail?.(`unreachable (${result.cause})`)
          lease.release()
          lease = undefined
          lease = await options.slots.acquire(target.slot.name, {
            signal: client.signal,
            timeoutMs: queueTimeoutMs,
          })
        }
      } else {
        // With auth off, no page of another site spends a hosted upstream's key (the app's rule).
        const refused = options.refuseHosted?.(req)
        if (refused) throw refused
        record.model = `${target.upstream.name}/${target.model}`
        await send(x, {
          target,
          url: hostedUrl(target.upstream, spec, path),
          body: rewriteModel(body, json, target.model),
          timeoutMs: target.upstream.timeoutMs,
          ...(target.upstream.apiKey ? { auth: target.upstream.apiKey } : {}),
        })
      }
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
      lease?.release()
      record.seconds = (performance.now() - started) / 1000
      options.observe?.(record, req)
    }
  }

  async function send(x: Exchange, hop: Hop): Promise<ForwardResult> {
    const { record } = x
    let sentAt = 0
    const result = await forward({
      url: hop.url,
      headers: upstreamHeaders(x.req, hop.body, x.requestId, hop.auth),
      ...(hop.normaliseBody ? { normaliseBody: hop.normaliseBody } : {}),
      ...(hop.retryUnreachable ? { retryUnreachable: true } : {}),
      body: hop.body,
      res: x.res,
      client: x.client,
      timeoutMs: hop.timeoutMs,
      who:
        hop.target.kind === 'slot' ? `slot ${hop.target.slot.name}` : `upstream ${hop.target.upstream.name}`,
      agent: agents.get(hop.url),
      requestId: x.requestId,
      onUpstreamRequest: () => {
        sentAt = performance.now()
        record.overheadSeconds = (sentAt - x.started) / 1000
      },
      onFirstByte: () => {
        record.ttfbSeconds = (performance.now() - sentAt) / 1000
      },
    })
    if (result.outcome === 'unreachable') return result
    record.status = result.status
    record.outcome = result.outcome
    if (result.usage) record.usage = result.usage
    return result
  }

  return {
    handles: (path) => endpointFor(path) !== undefined,
    handle,
    call: createCaller({ ...options, queueTimeoutMs, upstreamTimeoutMs }),
    close: () => agents.destroy(),
  }
}
