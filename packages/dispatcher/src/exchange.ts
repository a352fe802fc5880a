/**
 * One client request as the dispatcher carries it (`Exchange`), one hop of it to an upstream (`Hop`),
 * and the send that makes the hop and writes what it measured into the request's record.
 */
import type { IncomingMessage, ServerResponse } from 'node:http'
import type { AnswerFix } from './answer-fix-types'
import type { ClientWatch } from './client-watch'
import type { DispatchRecord } from './dispatch-types'
import type { ForwardBody, ForwardResult, NormaliseBody, NormaliseError } from './forward-types'
import { upstreamHeaders } from './outbound'
import { forward } from './proxy'
import type { Target } from './resolve'
import type { UpstreamPools } from './upstream-pools'

/** One client request as the dispatcher carries it: both ends, its id, and what it records. */
export interface Exchange {
  req: IncomingMessage
  res: ServerResponse
  requestId: string
  client: ClientWatch
  record: DispatchRecord
  /** `performance.now()` when it arrived. */
  started: number
}

/** One hop to an upstream. */
export interface Hop {
  target: Target
  url: URL
  body: ForwardBody
  timeoutMs: number
  /** A hosted upstream's API key (sent as the bearer). */
  auth?: string
  retryUnreachable?: boolean
  normaliseBody?: NormaliseBody
  normaliseError?: NormaliseError
  /** The correction of the answer to its surface's spec (answer-fix.ts), when it needs one. */
  fix?: AnswerFix
}

/** Makes one hop and records it (status, outcome, usage, svc's overhead, time to first byte). */
export type SendHop = (exchange: Exchange, hop: Hop) => Promise<ForwardResult>

export function hopSender(pools: UpstreamPools): SendHop {
  return (exchange, hop) => {
    const { record } = exchange
    let sentAt = 0
    // One object of one shape per hop (optional fields present, maybe undefined): no spreads.
    return forward({
      url: hop.url,
      headers: upstreamHeaders(exchange.req, hop.body, exchange.requestId, hop.auth),
      normaliseBody: hop.normaliseBody,
      normaliseError: hop.normaliseError,
      fix: hop.fix,
      retryUnreachable: hop.retryUnreachable === true,
      body: hop.body,
      res: exchange.res,
      client: exchange.client,
      timeoutMs: hop.timeoutMs,
      who: whoOf(hop.target),
      pool: pools.get(hop.url),
      requestId: exchange.requestId,
      onUpstreamRequest: () => {
        sentAt = performance.now()
        record.overheadSeconds = (sentAt - exchange.started) / 1000
      },
      onFirstByte: () => {
        record.ttfbSeconds = (performance.now() - sentAt) / 1000
      },
      fresh: false,
    }).then((result) => {
      if (result.outcome === 'unreachable') return result
      record.status = result.status
      record.outcome = result.outcome
      if (result.usage) record.usage = result.usage
      return result
    })
  }
}

const slotNames = new Map<string, string>()
const upstreamNames = new Map<string, string>()

/** How error messages name the target ("slot primary", "upstream openai"), made once per name. */
function whoOf(target: Target): string {
  return target.kind === 'slot'
    ? named(slotNames, 'slot', target.slot.name)
    : named(upstreamNames, 'upstream', target.upstream.name)
}

function named(names: Map<string, string>, kind: string, name: string): string {
  let who = names.get(name)
  if (who === undefined) {
    who = `${kind} ${name}`
    if (names.size > 1000) names.clear()
    names.set(name, who)
  }
  return who
}
