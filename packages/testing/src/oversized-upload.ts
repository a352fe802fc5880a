/**
 * An upload that never ends: what a client does that keeps sending after the server said 413. The
 * server must answer and close the connection, not keep reading (and paying for) the rest.
 */
import { connect } from 'node:net'

export interface OversizedUpload {
  /** The status of the answer; 0 when none came. */
  status: number
  /** The answer's head and (start of the) body. */
  head: string
  body: string
  /** Milliseconds from the answer to the server closing the connection; undefined when it never did. */
  closedAfterMs: number | undefined
  /** Bytes of body written before the server closed (or the time ran out). */
  sent: number
}

export interface OversizedUploadOptions {
  method?: string
  path: string
  headers?: Record<string, string>
  /** `chunked`: Transfer-Encoding: chunked, no end; a number: that Content-Length, never reached. */
  framing: 'chunked' | number
  /** How long to keep sending after the answer before giving up on a close. Default 4 s. */
  graceMs?: number
  /** Give up when no answer came in this long. Default 20 s. */
  timeoutMs?: number
}

/**
 * Sends a request head, then body bytes (`{"a":"xxx…` so a JSON reader keeps going) as fast as the
 * server takes them, until the server closes the connection or `graceMs` after its answer.
 */
export function sendOversizedUpload(base: string, options: OversizedUploadOptions): Promise<OversizedUpload> {
  const { hostname, port } = new URL(base)
  const chunked = options.framing === 'chunked'
  const head = [
    `${options.method ?? 'POST'} ${options.path} HTTP/1.1`,
    `Host: ${hostname}:${port}`,
    chunked ? 'Transfer-Encoding: chunked' : `Content-Length: ${options.framing}`,
    ...Object.entries(options.headers ?? {}).map(([k, v]) => `${k}: ${v}`),
    '',
    '',
  ].join('\r\n')
  const payload = Buffer.alloc(64 * 1024, 0x78)
  const piece = chunked
    ? Buffer.concat([Buffer.from(`${payload.length.toString(16)}\r\n`), payload, Buffer.from('\r\n')])
    : payload
  const first = chunked ? '6\r\n{"a":"\r\n' : '{"a":"'
  return new Promise((resolve) => {
    const socket = connect({ host: hostname, port: Number(port) })
    const received: Buffer[] = []
    let answeredAt: number | undefined
    let sent = 0
    let done = false
    const finish = (closed: boolean) => {
      if (done) return
      done = true
      clearTimeout(timeout)
      clearTimeout(grace)
      socket.destroy()
      const text = Buffer.concat(received).toString('latin1')
      const split = text.indexOf('\r\n\r\n')
      resolve({
        status: Number(/^HTTP\/1\.[01] (\d{3})/.exec(text)?.[1] ?? 0),
        head: split < 0 ? text : text.slice(0, split),
        body: split < 0 ? '' : text.slice(split + 4),
        closedAfterMs: closed && answeredAt !== undefined ? performance.now() - answeredAt : undefined,
        sent,
      })
    }
    let grace: NodeJS.Timeout | undefined
    const timeout = setTimeout(() => finish(false), options.timeoutMs ?? 20_000)
    socket.on('data', (d: Buffer) => {
      received.push(d)
      if (answeredAt === undefined && Buffer.concat(received).includes('\r\n\r\n')) {
        answeredAt = performance.now()
        grace = setTimeout(() => finish(false), options.graceMs ?? 4_000)
      }
    })
    socket.on('close', () => finish(true))
    socket.on('error', () => finish(true))
    const pump = () => {
      while (!done && !socket.destroyed) {
        sent += piece.length
        if (!socket.write(piece)) {
          socket.once('drain', pump)
          return
        }
      }
    }
    socket.once('connect', () => {
      socket.write(head + first)
      pump()
    })
  })
}
