/**
 * Headers the app adds to a response before the dispatcher answers it (the rate-limit headers of a
 * limited token), kept apart from Node's own header store: `res.setHeader` before `writeHead` sends
 * Node down its slow path (every header of the answer validated and stored again), a visible cost
 * on the hot path. Each place the dispatcher writes a head merges them into its one object instead.
 */
import type { OutgoingHttpHeaders, ServerResponse } from 'node:http'

const added = new WeakMap<ServerResponse, Readonly<OutgoingHttpHeaders>>()

/** Headers (lower-case names) every answer on `res` carries, errors included. Replaces earlier ones. */
export function addResponseHeaders(res: ServerResponse, headers: Readonly<OutgoingHttpHeaders>): void {
  added.set(res, headers)
}

/** `headers` with what was added for `res`; an added header replaces one of the same name (an upstream's own rate limits). */
export function withAddedHeaders(res: ServerResponse, headers: OutgoingHttpHeaders): OutgoingHttpHeaders {
  const extra = added.get(res)
  if (!extra) return headers
  for (const name in extra) headers[name] = extra[name]
  return headers
}
