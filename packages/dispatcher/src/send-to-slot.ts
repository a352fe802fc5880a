/**
 * Sending a request to a slot: the steps every slot request takes (slot-request.ts: the slot serves
 * the endpoint, the body, the image check, the lease, waiting while it loads, bounded, with a loading
 * notice for a streaming client), then either let the provider
 * translate the request (ComfyUI's workflow for images) or stream it to the upstream, trying another
 * replica when one cannot be reached. The lease is released when the hop is over, whatever happened.
 */
import type { Lease } from '@svc/core'
import { answerFixFor } from './answer-fix'
import type { DispatcherOptions, SlotRoute } from './dispatch-types'
import type { EndpointSpec } from './endpoints'
import type { Exchange, SendHop } from './exchange'
import type { ForwardBody } from './forward-types'
import { loadingWriter } from './loading-notice'
import { bothFixes, namedAnswerFix } from './model-name-fix'
import { prependFields } from './multipart-fields'
import { rewriteModel, upstreamUrl, writeResponse } from './outbound'
import type { ReadRequest } from './read-request'
import type { Target } from './resolve'
import { SlotRequest } from './slot-request'
import { translates } from './translates'
import { usageFromTail } from './usage'
import { keepTail, readWholeUpload } from './whole-upload'

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
  const { res, requestId, client, record } = exchange
  const { json } = request
  // The slot serves the endpoint; a preset's fields and the provider's preparation of the body;
  // images refused for a model that cannot see them; replica hints; then the lease, with loading
  // notices for a stream (slot-request.ts: the same steps as a request made inside svc).
  const notice = loadingWriter(res, json, requestId)
  const ask = new SlotRequest(context, target, spec, request, exchange, notice?.update)
  const { route, carried } = ask
  // An upload the provider may take over (streaming transcription) is read whole, before any wait;
  // every other body goes on as read-request.ts left it.
  const upload =
    request.body.kind === 'stream' && route.translate?.endpoints.includes(spec.endpoint)
      ? await readWholeUpload(request.body, exchange.req)
      : undefined
  const sent: ReadRequest = upload ? { ...request, body: upload.body } : request
  const asked = performance.now()
  record.leaseAskedSeconds = (asked - exchange.started) / 1000
  const leasing = ask.lease()
  let lease = await (notice ? leasing.finally(notice.stop) : leasing)
  record.leaseWaitSeconds = (performance.now() - asked) / 1000
  // Whether `lease` was given back already (between two replicas, when the next acquire fails).
  let released = false
  try {
    record.model = lease.model.id
    // An image edit's form (read whole by read-request.ts) goes to the translator with its files.
    const translatable = json ?? upload?.fields ?? (request.form ? {} : undefined)
    if (
      translatable &&
      route.translate &&
      (await translates(route.translate, spec.endpoint, lease.model, translatable))
    ) {
      const response = await route.translate.handle({
        endpoint: spec.endpoint,
        body: translatable,
        rawBody: request.raw?.toString('utf8') ?? '',
        ...(request.form ? { form: request.form, path: record.route } : {}),
        base: lease.base,
        model: lease.model,
        signal: client.signal,
      })
      const tail = upload ? keepTail(response) : undefined
      record.status = await writeResponse(res, tail?.response ?? response, requestId)
      if (tail) record.usage = usageFromTail(tail.text())
      record.outcome = 'ok'
      return
    }
    const upstreamBody = bodyForSlot(route, exchange, spec, sent, carried, lease)
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
      lease = await ask.another()
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
