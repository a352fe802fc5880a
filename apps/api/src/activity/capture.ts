/**
 * Body capture for the activity view: off by default; an admin turns it on for some minutes and it
 * turns itself off after them. While on, each request that starts keeps its request (headers and
 * JSON body) and its answer (head and body, streamed or not), secrets redacted (capture-redact.ts),
 * each body cut at `maxBytes`; only the last `maxEntries` requests are kept, and fewer when together
 * they pass `maxTotalBytes`. Memory only: a restart forgets them.
 *
 * Off, nothing here runs per request: the activity log asks `active()` (a comparison) and the answer
 * is relayed as always. On, the response's `writeHead`/`write`/`end` are wrapped on that one response
 * to copy what passes (up to the cap) before it goes out unchanged.
 */
import type { IncomingMessage, ServerResponse } from 'node:http'
import type { CapturedBody, CapturedExchange, CaptureState } from './activity-types'
import { redactBodyText, redactHeaders } from './capture-redact'

export interface CaptureOptions {
  now?: () => number
  /** Per body (bytes). Default 64 KiB. */
  maxBytes?: number
  /** All kept bodies together (bytes). Default 8 MiB. */
  maxTotalBytes?: number
  /** Requests kept. Default 50. */
  maxEntries?: number
}

export interface Capture {
  state(): CaptureState
  /** Turns capture on for `minutes` (from now), or off. Kept captures stay until pushed out. */
  set(on: boolean, minutes: number): CaptureState
  /** Whether capture is on now (it turns itself off once its time has passed). */
  active(): boolean
  /** Starts keeping request `id`: its request now, its answer as it is written to `res` (when there is one). */
  begin(id: string, req: IncomingMessage, res: ServerResponse | undefined, body: Buffer | undefined): void
  /** Ends request `id` with the status answered: its answer is redacted and kept. */
  end(id: string, status: number): void
  get(id: string): CapturedExchange | undefined
  has(id: string): boolean
}

type HeaderValues = Record<string, string | string[] | number | undefined>

interface Pending {
  request: CapturedBody
  /** The response (undefined: a call inside svc, whose answer is not captured). */
  res: ServerResponse | undefined
  headers: HeaderValues
  chunks: Buffer[]
  bytes: number
  truncated: boolean
}

export function createCapture(options: CaptureOptions = {}): Capture {
  const now = options.now ?? Date.now
  const maxBytes = options.maxBytes ?? 64 * 1024
  const maxTotal = options.maxTotalBytes ?? 8 * 1024 * 1024
  const maxEntries = options.maxEntries ?? 50
  let until: number | null = null
  const pending = new Map<string, Pending>()
  const kept = new Map<string, { exchange: CapturedExchange; bytes: number }>()
  let total = 0

  const active = () => {
    if (until !== null && now() >= until) until = null
    return until !== null
  }
  const state = (): CaptureState => ({
    on: active(),
    until,
    max_bytes: maxBytes,
    kept: kept.size,
  })

  function keep(id: string, exchange: CapturedExchange): void {
    const bytes = (exchange.request.body?.length ?? 0) + (exchange.response.body?.length ?? 0)
    kept.delete(id)
    kept.set(id, { exchange, bytes })
    total += bytes
    for (const [oldest, entry] of kept) {
      if (kept.size <= maxEntries && total <= maxTotal) break
      kept.delete(oldest)
      total -= entry.bytes
    }
  }

  return {
    state,
    active,
    set(on, minutes) {
      until = on ? now() + minutes * 60_000 : null
      return state()
    },
    begin(id, req, res, body) {
      const p: Pending = {
        request: textOf(req.headers, body, maxBytes),
        res,
        headers: {},
        chunks: [],
        bytes: 0,
        truncated: false,
      }
      pending.set(id, p)
      if (res) tee(res, p, maxBytes)
    },
    end(id, status) {
      const p = pending.get(id)
      if (!p) return
      pending.delete(id)
      const raw = Buffer.concat(p.chunks).toString('utf8')
      keep(id, {
        request: p.request,
        response: {
          status,
          headers: p.res ? redactHeaders({ ...p.res.getHeaders(), ...p.headers }) : {},
          body: p.res ? redactBodyText(raw) : null,
          truncated: p.truncated,
        },
      })
    },
    get: (id) => kept.get(id)?.exchange,
    has: (id) => kept.has(id),
  }
}

function textOf(
  headers: IncomingMessage['headers'],
  body: Buffer | undefined,
  maxBytes: number,
): CapturedBody {
  return {
    headers: redactHeaders(headers),
    body: body ? redactBodyText(body.subarray(0, maxBytes).toString('utf8')) : null,
    truncated: body !== undefined && body.length > maxBytes,
  }
}

type Writer = (...args: unknown[]) => unknown

/** Wraps this one response's writes to copy up to `maxBytes` of what it sends into `p`. */
function tee(res: ServerResponse, p: Pending, maxBytes: number): void {
  const target = res as unknown as { writeHead: Writer; write: Writer; end: Writer }
  const { writeHead, write, end } = target
  const take = (chunk: unknown, encoding: unknown) => {
    if (chunk === undefined || chunk === null || typeof chunk === 'function') return
    const buf =
      typeof chunk === 'string'
        ? Buffer.from(chunk, typeof encoding === 'string' ? (encoding as BufferEncoding) : 'utf8')
        : Buffer.from(chunk as Uint8Array)
    const room = maxBytes - p.bytes
    if (room <= 0) {
      if (buf.length > 0) p.truncated = true
      return
    }
    if (buf.length > room) p.truncated = true
    const part = buf.subarray(0, room)
    p.chunks.push(Buffer.from(part))
    p.bytes += part.length
  }
  target.writeHead = function (this: unknown, ...args: unknown[]) {
    const headers = args.find((a) => a !== null && typeof a === 'object')
    if (Array.isArray(headers)) {
      for (let i = 0; i + 1 < headers.length; i += 2) p.headers[String(headers[i])] = String(headers[i + 1])
    } else if (headers) Object.assign(p.headers, headers as HeaderValues)
    return writeHead.apply(this, args)
  }
  target.write = function (this: unknown, ...args: unknown[]) {
    take(args[0], args[1])
    return write.apply(this, args)
  }
  target.end = function (this: unknown, ...args: unknown[]) {
    take(args[0], args[1])
    return end.apply(this, args)
  }
}
