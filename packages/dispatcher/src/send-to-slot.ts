/**
 * Sending a request to a slot: check the slot serves the endpoint, take a lease (waiting while it
 * loads, bounded, with a loading notice for a streaming client), then either let the provider
 * translate the request (ComfyUI's workflow for images) or stream it to the upstream, trying another
 * replica when one cannot be reached. The lease is released when the hop is over, whatever happened.
 */
import { type Lease, type LoadingNotice, type RouteHints, SvcError } from '@svc/core'
import { answerFixFor } from './answer-fix'
import type { DispatcherOptions, SlotRoute } from './dispatch-types'
import type { EndpointSpec } from './endpoints'
import type { Exchange, SendHop } from './exchange'
import type { ForwardBody } from './forward-types'
import { loadingWriter } from './loading-notice'
import { bothFixes, namedAnswerFix } from './model-name-fix'
import { prependFields } from './multipart-fields'
import { rewriteModel, upstreamUrl, writeResponse } from './outbound'
import { presetFields } from './preset-fields'
import type { ReadRequest } from './read-request'
import type { Target } from './resolve'
import { routeHintsFor } from './route-hints'
import { translates } from './translates'
import { refuseImagesWithoutVision } from './vision'

/** Replicas one request may try when the first cannot be reached. */
const MAX_REPLICA_TRIES = 3

export interface SlotSendContext {
  options: DispatcherOptions
  queueTimeoutMs: number
  upstreamTimeoutMs: number
  send: SendHop
}

export async function sendToSlot(
  context: SlotSendContext,
  exchange: Exchange,
  target: Extract<Target, { kind: 'slot' }>,
  spec: EndpointSpec,
  request: ReadRequest,
): Promise<void> {
  const { options, queueTimeoutMs } = context
  const { res, requestId, client, record } = exchange
  const { json } = request
  const route = options.routeFor(target.slot.name)
  if (!route.endpoints.includes(spec.endpoint) && !route.translate?.endpoints.includes(spec.endpoint)) {
    throw new SvcError('request.invalid', `slot "${target.slot.name}" does not serve ${spec.endpoint}`, {
      param: 'model',
    })
  }
  // Images for a model that cannot see them: refused before waiting on a load, and again below for
  // the model the lease really got (a swap may have happened meanwhile). A remote slot's upstream
  // loads its own files (a projector or not): svc cannot tell, the remote judges.
  const config = options.slots.config(target.slot.name)
  const remote = config.runtime === 'remote'
  const seeing = spec.endpoint === 'chat' && json && !remote ? json : undefined
  // A preset's request fields (for what the request named, or what the slot it named holds), then the
  // provider's own preparation of the body, before any wait: a body it cannot carry is refused now.
  const asked = target.ref === undefined ? target.slot.currentModel()?.id : request.model
  const fielded = presetFields(options.presets, asked, spec.endpoint, json)
  const prepared = fielded ?? json
  const carried = (prepared && route.prepareBody?.(spec.endpoint, prepared)) ?? fielded
  const planned = target.slot.currentModel()
  if (seeing && planned) refuseImagesWithoutVision(seeing, planned, target.slot.name)
  // Which replica holds this prompt's prefix (only for a slot with replicas that routes by cache).
  const hints = routeHintsFor(config, spec.endpoint, carried ?? json, exchange.req)
  const notice = loadingWriter(res, json, requestId)
  const leasing = options.slots.acquire(
    target.slot.name,
    new LeaseAsk(client, queueTimeoutMs, target.ref, notice?.update, hints),
  )
  let lease = await (notice ? leasing.finally(notice.stop) : leasing)
  // Whether `lease` was given back already (between two replicas, when the next acquire fails).
  let released = false
  try {
    record.model = lease.model.id
    if (seeing) refuseImagesWithoutVision(seeing, lease.model, target.slot.name)
    if (json && route.translate && (await translates(route.translate, spec.endpoint, lease.model, json))) {
      const response = await route.translate.handle({
        endpoint: spec.endpoint,
        body: json,
        rawBody: request.raw?.toString('utf8') ?? '',
        base: lease.base,
        model: lease.model,
        signal: client.signal,
      })
      record.status = await writeResponse(res, response, requestId)
      record.outcome = 'ok'
      return
    }
    const upstreamBody = bodyForSlot(route, exchange, spec, request, carried, lease)
    // The answer held to its surface's spec where the engine is wrong (none for most requests).
    // ... and named as the client named it (a preset's alias runs on an engine of another name).
    const fix = bothFixes(
      answerFixFor(spec.endpoint, carried ?? json),
      namedAnswerFix(request.model, target.ref),
    )
    // A replica that cannot be reached leaves the rotation and the request goes to another one.
    for (let attempt = 1; ; attempt++) {
      const result = await context.send(exchange, {
        target,
        url: upstreamUrl(lease.base, route.requestPath(spec.endpoint)),
        // The upstream's own key, never the client's credentials (upstreamHeaders drops those).
        auth: lease.apiKey,
        body: upstreamBody,
        timeoutMs: context.upstreamTimeoutMs,
        retryUnreachable: lease.fail !== undefined && attempt < MAX_REPLICA_TRIES,
        normaliseBody: route.normaliseBody,
        normaliseError: route.normaliseError,
        fix,
      })
      if (result.outcome !== 'unreachable') return
      lease.fail?.(`unreachable (${result.cause})`)
      lease.release()
      released = true
      lease = await options.slots.acquire(
        target.slot.name,
        new LeaseAsk(client, queueTimeoutMs, undefined, undefined, hints),
      )
      released = false
    }
  } finally {
    if (!released) lease.release()
  }
}

/**
 * The body the slot's upstream gets: a multipart upload with the provider's fields put in front, or
 * the JSON body (as the provider prepared it, when it did) with `model` rewritten to what the
 * upstream calls it.
 */
function bodyForSlot(
  route: SlotRoute,
  exchange: Exchange,
  spec: EndpointSpec,
  request: ReadRequest,
  carried: Record<string, unknown> | undefined,
  lease: Lease,
): ForwardBody {
  const { body, json } = request
  const fields = route.multipartFields?.(spec.endpoint)
  if (fields) return prependFields(body, fields, exchange.req.headers['content-type'])
  const upstreamModel = route.upstreamModel?.({ model: lease.model })
  return rewriteModel(body, carried ?? json, upstreamModel, carried !== undefined)
}

/**
 * What a request asks of the slot's leases. The signal is a getter: acquire reads it only when it
 * has to wait for a loading slot, and an AbortSignal costs more than the rest of a relayed request.
 */
class LeaseAsk {
  constructor(
    private readonly client: { readonly signal: AbortSignal },
    readonly timeoutMs: number,
    readonly ref: string | undefined,
    readonly onLoading: ((notice: LoadingNotice) => void) | undefined,
    readonly hints: RouteHints | undefined,
  ) {}

  get signal(): AbortSignal {
    return this.client.signal
  }
}
