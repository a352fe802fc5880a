/**
 * HTTP pieces of the Hub stand-in: bodies with Range (and a throttle), JSON answers and the Hub's
 * error shape, the absolute `Link` it pages with, and the Hub's token format.
 */
import type { IncomingMessage, Server, ServerResponse } from 'node:http'

/** A token of the Hub's shape: `hf_` and 34 or more letters and digits. */
export const HUB_TOKEN_RE = /^hf_[A-Za-z0-9]{34,}$/

/** A well-formed Hub token for tests, from a short seed (`hubToken('alice')`). */
export function hubToken(seed: string): string {
  return `hf_${seed.replace(/[^A-Za-z0-9]/g, '').padEnd(34, 'x')}`
}

/** The absolute `Link: <…>; rel="next"` the Hub pages with (the request's URL with `cursor`). */
export function linkTo(url: URL, cursor: string | undefined): Record<string, string> {
  if (cursor === undefined) return {}
  const next = new URL(url.href)
  next.searchParams.set('cursor', cursor)
  return { link: `<${next.href}>; rel="next"` }
}

/** Body with Range (`bytes=a-b`, `bytes=a-`, `bytes=-n`): 206, 416 past the end; HEAD sends no body. */
export function sendBytes(
  req: IncomingMessage,
  res: ServerResponse,
  body: Buffer,
  headers: Record<string, string>,
  bytesPerSecond?: number,
): void {
  const range = /^bytes=(\d*)-(\d*)$/.exec(req.headers.range ?? '')
  const base = { ...headers, 'accept-ranges': 'bytes' }
  if (range && (range[1] || range[2])) {
    let start: number
    let end: number
    if (range[1]) {
      start = Number(range[1])
      end = range[2] ? Math.min(Number(range[2]), body.length - 1) : body.length - 1
    } else {
      start = Math.max(0, body.length - Number(range[2]))
      end = body.length - 1
    }
    if (start >= body.length || end < start) {
      res.writeHead(416, { ...base, 'content-range': `bytes */${body.length}` }).end()
      return
    }
    res.writeHead(206, {
      ...base,
      'content-length': end - start + 1,
      'content-range': `bytes ${start}-${end}/${body.length}`,
    })
    endWith(req, res, body.subarray(start, end + 1), bytesPerSecond)
    return
  }
  res.writeHead(200, { ...base, 'content-length': body.length })
  endWith(req, res, body, bytesPerSecond)
}

/** Ends `res` with `body` (nothing for HEAD), at once or in 16 kB chunks at `bytesPerSecond`. */
export function endWith(
  req: IncomingMessage,
  res: ServerResponse,
  body: Buffer,
  bytesPerSecond?: number,
): void {
  if (req.method === 'HEAD') return void res.end()
  if (!bytesPerSecond) return void res.end(body)
  const chunk = 16_384
  let at = 0
  const next = () => {
    if (res.destroyed) return
    if (at >= body.length) return void res.end()
    res.write(body.subarray(at, at + chunk))
    at += chunk
    setTimeout(next, (chunk / bytesPerSecond) * 1000)
  }
  next()
}

export function sendJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  const text = JSON.stringify(body)
  res.writeHead(status, {
    ...headers,
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(text),
  })
  res.end(text)
}

/** The Hub's error answer: `{"error": message}`, with `X-Error-Code` / `X-Error-Message`. */
export function sendError(
  res: ServerResponse,
  status: number,
  message: string,
  code?: string,
  headers: Record<string, string> = {},
): void {
  sendJson(
    res,
    status,
    { error: message },
    {
      ...(code ? { 'x-error-code': code } : {}),
      'x-error-message': headers['x-error-message'] ?? message.replace(/[^\x20-\x7e]/g, ''),
      ...headers,
    },
  )
}

export function parsePathsInfo(
  body: string,
  contentType: string | undefined,
): { paths: string[]; expand: boolean } {
  if (contentType?.includes('application/json')) {
    const json = JSON.parse(body || '{}') as { paths?: unknown; expand?: unknown }
    const paths = Array.isArray(json.paths) ? json.paths.map(String) : []
    return { paths, expand: json.expand === true || json.expand === 'true' }
  }
  const form = new URLSearchParams(body)
  return { paths: form.getAll('paths'), expand: form.get('expand') === 'true' }
}

export async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = []
  for await (const chunk of req) chunks.push(chunk as Buffer)
  return Buffer.concat(chunks).toString('utf8')
}

export function listen(server: Server): Promise<void> {
  return new Promise((r) => server.listen(0, '127.0.0.1', r))
}

export function portOf(server: Server): number {
  const address = server.address()
  return typeof address === 'object' && address ? address.port : 0
}
