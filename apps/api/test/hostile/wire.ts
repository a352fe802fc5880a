/** HTTP for the hostile-input suite: requests through node:http, and raw bytes on a socket. */
import { Agent, request } from 'node:http'
import { connect } from 'node:net'

export interface Reply {
  status: number
  headers: Record<string, string | string[] | undefined>
  text: string
  ms: number
}

// A connection per request: a reset then means svc dropped this request, never a reused socket
// that svc had closed after an earlier answer.
const agent = new Agent({ keepAlive: false, maxSockets: 64 })

/**
 * One request; rejects when no complete answer came within `timeoutMs` (a hang). A server that
 * answers before reading the whole body (413) may cut the upload: that is still its answer.
 */
export function sendHttp(
  base: string,
  options: {
    method: string
    path: string
    headers: Record<string, string>
    body?: Buffer
    timeoutMs: number
  },
): Promise<Reply> {
  const url = new URL(options.path, base)
  const t0 = performance.now()
  return new Promise((resolve, reject) => {
    // Framing stated explicitly: node:http sends no length for a DELETE body on its own.
    const headers = options.body
      ? { ...options.headers, 'content-length': String(options.body.length) }
      : options.headers
    const req = request(
      { host: url.hostname, port: url.port, path: options.path, method: options.method, headers, agent },
      (res) => {
        let text = ''
        res.setEncoding('utf8')
        res.on('data', (d: string) => {
          if (text.length < 1_000_000) text += d
        })
        res.on('end', () => {
          clearTimeout(timer)
          resolve({ status: res.statusCode ?? 0, headers: res.headers, text, ms: performance.now() - t0 })
        })
        res.on('error', reject)
      },
    )
    const timer = setTimeout(() => {
      req.destroy()
      reject(new Error(`no answer within ${options.timeoutMs} ms: ${options.method} ${options.path}`))
    }, options.timeoutMs)
    req.on('error', (error) => {
      clearTimeout(timer)
      reject(error)
    })
    // After a 413 svc closes while the upload is still being written: the write's EPIPE comes after
    // the answer, on a socket the request has already let go of.
    req.on('socket', (socket) => socket.on('error', () => {}))
    req.end(options.body)
  })
}

/** Writes raw bytes and reads until the server closes (or `timeoutMs`, a hang). */
export function sendRaw(
  base: string,
  bytes: Buffer,
  timeoutMs: number,
): Promise<{ status: number; head: string; body: string }> {
  const { hostname, port } = new URL(base)
  return new Promise((resolve, reject) => {
    const socket = connect({ host: hostname, port: Number(port) })
    const chunks: Buffer[] = []
    const timer = setTimeout(() => {
      socket.destroy()
      reject(
        new Error(
          `no answer within ${timeoutMs} ms to ${JSON.stringify(bytes.subarray(0, 80).toString('latin1'))}`,
        ),
      )
    }, timeoutMs)
    socket.on('data', (d: Buffer) => chunks.push(d))
    const done = () => {
      clearTimeout(timer)
      const text = Buffer.concat(chunks).toString('latin1')
      const split = text.indexOf('\r\n\r\n')
      const head = split < 0 ? text : text.slice(0, split)
      resolve({
        status: Number(/^HTTP\/1\.[01] (\d{3})/.exec(text)?.[1] ?? 0),
        head,
        body: split < 0 ? '' : text.slice(split + 4),
      })
    }
    socket.on('end', done)
    socket.on('close', done)
    socket.on('error', () => done())
    socket.write(bytes)
    // Half-close after sending: the server has everything it will get.
    socket.end()
  })
}

export function closeAgent(): void {
  agent.destroy()
}
