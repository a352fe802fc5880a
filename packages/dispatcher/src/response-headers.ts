/**
 * Headers the app adds to a response before the dispatcher answers it (the rate-limit headers of a
 * limited token), kept apart from Node's own header store: `res.setHeader` before `writeHead` sends
 * Node down its slow path (every header of the answer validated and stored again), a visible cost
 * on the hot path. Each place the dispatcher writes a head merges them into its one object instead.
 */
import { type IncomingMessage, type OutgoingHttpHeaders, ServerResponse } from 'node:http'

/** Adds headers (lower-case names) to a head about to be written; a header it sets replaces one of the same name. */
export type HeaderAdder = (head: OutgoingHttpHeaders) => void

// Kept on the response itself: a WeakMap entry per response costs the garbage collector more.
const ADDED = Symbol('svc.added-headers')
type WithAdded = ServerResponse & { [ADDED]?: HeaderAdder }

/**
 * The servers' response class (`createServer({ ServerResponse })`): every response has the slot for
 * added headers from the start. Added only to the responses of limited callers, the slot gave V8 two
 * shapes of response wherever Node's HTTP code reads one, so a process answering limited and
 * unlimited callers at once ran those reads polymorphic, slower for both.
 */
export class ResponseWithAddedHeaders<
  Request extends IncomingMessage = IncomingMessage,
> extends ServerResponse<Request> {
  [ADDED]: HeaderAdder | undefined = undefined
}

/**
 * Headers every answer on `res` carries, errors included, added by `add` when the head is written
 * (a function rather than an object of headers: it writes them straight into the head). Replaces an
 * earlier one.
 */
export function addResponseHeaders(res: ServerResponse, add: HeaderAdder): void {
  ;(res as WithAdded)[ADDED] = add
}

/** `headers` with what was added for `res`; an added header replaces one of the same name (an upstream's own rate limits). */
export function withAddedHeaders(res: ServerResponse, headers: OutgoingHttpHeaders): OutgoingHttpHeaders {
  ;(res as WithAdded)[ADDED]?.(headers)
  return headers
}
