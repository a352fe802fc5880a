/**
 * What one hop to an upstream is given and what it ends with (`forward` in proxy.ts). A leaf: the
 * proxy and its relays import it, so neither needs the other's types.
 */
import type { IncomingMessage, ServerResponse } from 'node:http'
import type { ProviderRoute, SvcError } from '@svc/core'
import type { Dispatcher } from 'undici'
import type { AnswerFix } from './answer-fix-types'
import type { Usage } from './usage'

export type ForwardBody =
  | { kind: 'buffer'; data: Buffer }
  | {
      kind: 'stream'
      /** Bytes already read (while looking for `model`); sent first. */
      head: Buffer[]
      rest: IncomingMessage
      /** Bytes `rest` may still bring; beyond them the hop ends with 413 `request.too_large`. */
      maxRestBytes: number
      /** The whole body's limit, for the error message. */
      limit: number
      /** Bytes svc put in front of the client's body (its Content-Length grows by them). */
      added?: number
    }

export interface ForwardRequest {
  url: URL
  /** What the upstream may see (`upstreamHeaders`); undici adds `host`. */
  headers: Record<string, string>
  body: ForwardBody
  res: ServerResponse
  /** Tells when the client went away (the upstream request is then destroyed). */
  client: { onGone(fn: () => void): () => void }
  /** Until the upstream's response headers arrive. */
  timeoutMs: number
  /** Names the upstream in error messages (slot or hosted upstream name). */
  who: string
  /** The upstream origin's pool of kept-alive connections (`upstream-pools.ts`). */
  pool: Dispatcher
  requestId: string
  onUpstreamRequest?: () => void
  onFirstByte?: () => void
  /**
   * The provider's own reading of a whole (non-SSE) reply, for upstreams whose errors hide in
   * successes (FastFlowLM: HTTP 200 with `{"error": …}` or `null`): the error to send instead, or
   * undefined for a real success. When set, such replies are read whole before anything is sent.
   */
  normaliseBody?: NormaliseBody
  /** The provider's reading of an error reply (`ProviderRoute.normaliseError`), before the generic one. */
  normaliseError?: NormaliseError
  /**
   * The correction of a 2xx answer to its surface's spec (answer-fix.ts): JSON read whole and
   * rewritten, SSE rewritten event by event. Undefined for nearly every request: relayed as it comes.
   */
  fix?: AnswerFix
  /**
   * When the upstream cannot be reached at all (refused, reset before any answer), resolve with
   * outcome `unreachable` and answer the client nothing: the caller tries another replica. Only for
   * a buffered body, which can be sent again.
   */
  retryUnreachable?: boolean
  /** A new connection instead of the pool's kept-alive ones (the resend after a stale one). */
  fresh?: boolean
}

/** See `ForwardRequest.normaliseBody`; `body` is the parsed JSON (`null` for an empty body). */
export type NormaliseBody = NonNullable<ProviderRoute['normaliseBody']>

/** See `ForwardRequest.normaliseError`. */
export type NormaliseError = NonNullable<ProviderRoute['normaliseError']>

/** How a relay ends the hop: with the result, or with an error answered to the client. */
export interface Settle {
  finish(result: ForwardResult): void
  fail(error: SvcError): void
}

export interface ForwardResult {
  status: number
  outcome: 'ok' | 'client-gone' | 'upstream-died' | 'error' | 'unreachable'
  usage?: Usage
  /** Outcome `unreachable`: the connection error (`ECONNREFUSED`). */
  cause?: string
}
