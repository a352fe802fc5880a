/**
 * Headers the app adds to a response before the dispatcher answers it (the rate-limit headers of a
 * limited token), kept apart from Node's own header store: `res.setHeader` before `writeHead` sends
 * Node down its slow path (every header of the answer validated and stored again), a visible cost
 * on the hot path. Each place the dispatcher writes a head merges them into its one object instead.
 */
import type { OutgoingHttpHeaders, ServerResponse } from 'node:http'

// Kept on the response itself: a WeakMap entry per response costs the garbage collector more.
const ADDED = Symbol('svc.added-headers')
type WithAdded = ServerResponse & { [ADDED]?: Readonly<OutgoingHttpHeaders> }

/** Headers (lower-case names) every answer on `res` carries, errors included. Replaces earlier ones. */
export function addResponseHeaders(res: ServerResponse, headers: Readonly<OutgoingHttpHeaders>): void {
  ;(res as WithAdded)[ADDED] = headers
}

/** `headers` with what was added for `res`; an added header replaces one of the same name (an upstream's own rate limits). */
export function withAddedHeaders(res: ServerResponse, headers: OutgoingHttpHeaders): OutgoingHttpHeaders {
  const extra = (res as WithAdded)[ADDED]
  if (!extra) return headers
  for (const name in extra) headers[name] = extra[name]
  return headers
}
