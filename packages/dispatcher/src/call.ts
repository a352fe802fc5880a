/**
 * An inference request made from inside svc, for surfaces that translate to the OpenAI endpoints the
 * engines speak (the Ollama API): the same validation, model resolution, route check, image check,
 * lease and metrics record as a client's `/v1/*` request, but the body is a value and the answer a
 * web `Response` handed to the caller while the lease is held.
 *
 * It is not the hot path (`handle` is): the upstream is reached with `fetch`, since the caller
 * reads and rewrites the answer anyway.
 */
import type { IncomingMessage } from 'node:http'
import { SvcError } from '@svc/core'
import { parseJsonBody } from './body'
import type { DispatcherOptions, DispatchRecord } from './dispatch-types'
import { endpointFor } from './endpoints'
import { hostedUrl } from './hosted'
import { looksLikeErrorBody, normaliseUpstreamError } from './normalise'
import { SlotRequest, targetFor } from './slot-request'
import { translates } from './translates'

export interface InferenceCall {
  /** The OpenAI path it stands for: `/v1/chat/completions`, `/v1/completions`, `/v1/embeddings`. */
  path: string
  /** The OpenAI body (validated here against the path's schema, as a client's would be). */
  body: Record<string, unknown>
  requestId: string
  /** Aborts the wait for a loading slot and the upstream request (the client went away). */
  signal: AbortSignal
  /** The route the metrics record names (`/api/chat`). */
  route: string
  /** The client's request this call serves: observers key what it counts for on it (usage). */
  req: IncomingMessage
}

/** What the consumer learns besides the answer: the ref the slot ran. */
export interface CallInfo {
  /** The model ref that answered (the slot's, or the hosted upstream's model). */
  model: string
}

/**
 * Runs `call` and hands the upstream's 2xx answer to `consume`, holding the lease until `consume`
 * settles; a non-2xx answer is thrown as svc's `SvcError` (normalised) before `consume` runs.
 */
export type Caller = <T>(
  call: InferenceCall,
  consume: (response: Response, info: CallInfo) => Promise<T>,
) => Promise<T>

export function createCaller(
  options: DispatcherOptions & { upstreamTimeoutMs: number; queueTimeoutMs: number },
): Caller {
  const steps = { options, queueTimeoutMs: options.queueTimeoutMs }
  return async function callInference(call, consume) {
    const started = performance.now()
    const spec = endpointFor(call.path)
    if (!spec?.schema) throw new Error(`no JSON endpoint at ${call.path}`)
    const record: DispatchRecord = { route: call.route, slot: '-', status: 0, outcome: 'error', seconds: 0 }
    let release: (() => void) | undefined
    try {
      const raw = Buffer.from(JSON.stringify(call.body))
      const body = parseJsonBody(raw, 'application/json', spec.schema) as Record<string, unknown>
      const target = await targetFor(options, spec, body.model as string | undefined, call.req)
      record.slot = target.kind === 'slot' ? target.slot.name : `upstream:${target.upstream.name}`
      options.onStart?.(
        { req: call.req, res: undefined, requestId: call.requestId, record, started },
        body.model as string | undefined,
        raw,
      )
      let response: Response
      let model: string
      if (target.kind === 'slot') {
        // The same checks, body and lease as a client's request (slot-request.ts).
        const ask = new SlotRequest(
          steps,
          target,
          spec,
          { model: body.model as string | undefined, json: body },
          { req: call.req, client: call },
          undefined,
        )
        const lease = await ask.lease()
        release = () => lease.release()
        model = lease.model.id
        record.model = model
        const route = ask.route
        if (route.translate && (await translates(route.translate, spec.endpoint, lease.model, body))) {
          response = await route.translate.handle({
            endpoint: spec.endpoint,
            body,
            rawBody: raw.toString('utf8'),
            base: lease.base,
            model: lease.model,
            signal: call.signal,
          })
        } else {
          const upstreamModel = route.upstreamModel?.({ model: lease.model })
          const sent = ask.carried ?? body
          const out = upstreamModel === undefined ? sent : { ...sent, model: upstreamModel }
          const url = new URL(route.requestPath(spec.endpoint), lease.base)
          const who = `slot ${target.slot.name}`
          response = await post(url, out, call, options.upstreamTimeoutMs, who, lease.apiKey)
        }
      } else {
        const { upstream } = target
        record.slot = `upstream:${upstream.name}`
        model = target.model
        const url = hostedUrl(upstream, spec, record.route)
        response = await post(
          url,
          { ...body, model },
          call,
          upstream.timeoutMs,
          `upstream ${upstream.name}`,
          upstream.apiKey,
        )
      }
      record.ttfbSeconds = (performance.now() - started) / 1000
      response = await refuseErrors(response, record.slot)
      const result = await consume(response, { model })
      record.status = response.status
      record.outcome = 'ok'
      return result
    } catch (error) {
      record.status = error instanceof SvcError ? error.status : 500
      record.outcome = call.signal.aborted ? 'client-gone' : 'error'
      throw error
    } finally {
      release?.()
      record.seconds = (performance.now() - started) / 1000
      options.observe?.(record, call.req)
    }
  }
}

/** POSTs the body; the time-out covers the wait for the answer's headers (as the proxy's does). */
async function post(
  url: URL,
  body: Record<string, unknown>,
  call: InferenceCall,
  timeoutMs: number,
  who: string,
  apiKey?: string,
): Promise<Response> {
  const timeout = new AbortController()
  const timer = setTimeout(() => timeout.abort(), timeoutMs)
  try {
    return await fetch(url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'x-request-id': call.requestId,
        ...(apiKey ? { authorization: `Bearer ${apiKey}` } : {}),
      },
      body: JSON.stringify(body),
      signal: AbortSignal.any([call.signal, timeout.signal]),
    })
  } catch (error) {
    if (call.signal.aborted) throw error
    if (timeout.signal.aborted)
      throw new SvcError('upstream.timeout', `${who} did not answer within ${Math.round(timeoutMs / 1000)} s`)
    throw new SvcError('upstream.unavailable', `${who} cannot be reached: ${(error as Error).message}`)
  } finally {
    clearTimeout(timer)
  }
}

/** A non-2xx answer, or a 2xx JSON body that is an error (FastFlowLM), as svc's error. */
async function refuseErrors(response: Response, slot: string): Promise<Response> {
  const type = response.headers.get('content-type') ?? undefined
  if (!response.ok) {
    throw normaliseUpstreamError(response.status, await response.text(), type, slot)
  }
  if (!type?.includes('json')) return response
  const text = await response.text()
  if (looksLikeErrorBody(text)) throw normaliseUpstreamError(502, text, type, slot)
  return new Response(text, { status: response.status, headers: response.headers })
}
