/**
 * Test parts for the proxy tests: the real Caddy running a rendered Caddyfile, an HTTPS client that
 * does what `curl --resolve <name>:<port>:127.0.0.1 --cacert <Caddy's root>` does, and a server
 * that records what reaches an upstream.
 */
import type { ChildProcess } from 'node:child_process'
import { readFile } from 'node:fs/promises'
import { createServer, request as httpRequest, type IncomingHttpHeaders, type Server } from 'node:http'
import { request as httpsRequest } from 'node:https'
import { join } from 'node:path'
import { runCaddy } from '@svc/testing'

export interface Reply {
  status: number
  headers: IncomingHttpHeaders
  body: string
}

export interface Target {
  hostname: string
  port: number
  /** PEM of Caddy's local CA root (the only CA the client trusts). */
  ca?: string
}

export interface RequestOptions {
  method?: string
  headers?: Record<string, string>
  body?: string
  /** Called with each chunk as it arrives (after the status line). */
  onChunk?: (chunk: string) => void
  /** The local address to connect from (another 127.x address is another client to the proxy). */
  localAddress?: string
}

/** One HTTPS request to 127.0.0.1:`port` for `hostname` (SNI and Host), the path sent as given. */
export function https(target: Target, path: string, options: RequestOptions = {}): Promise<Reply> {
  return send(
    (cb) =>
      httpsRequest(
        {
          host: '127.0.0.1',
          port: target.port,
          servername: target.hostname,
          ...(target.ca ? { ca: target.ca } : {}),
          path,
          method: options.method ?? 'GET',
          headers: { host: `${target.hostname}:${target.port}`, ...options.headers },
          ...(options.localAddress ? { localAddress: options.localAddress } : {}),
          agent: false,
        },
        cb,
      ),
    options,
  )
}

/** One plain HTTP request to 127.0.0.1:`port` (Host header as given). */
export function http(
  port: number,
  path: string,
  options: RequestOptions & { host?: string } = {},
): Promise<Reply> {
  return send(
    (cb) =>
      httpRequest(
        {
          host: '127.0.0.1',
          port,
          path,
          method: options.method ?? 'GET',
          headers: { ...(options.host ? { host: options.host } : {}), ...options.headers },
          agent: false,
        },
        cb,
      ),
    options,
  )
}

type Make = (cb: (res: import('node:http').IncomingMessage) => void) => import('node:http').ClientRequest

function send(make: Make, options: RequestOptions): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const req = make((res) => {
      let body = ''
      res.setEncoding('utf8')
      res.on('data', (chunk: string) => {
        body += chunk
        options.onChunk?.(chunk)
      })
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }))
      res.on('error', reject)
    })
    req.on('error', reject)
    req.end(options.body)
  })
}

export interface Seen {
  method: string
  url: string
  headers: IncomingHttpHeaders
  body: string
}

export interface Recorder extends AsyncDisposable {
  port: number
  seen: Seen[]
  last(): Seen
  close(): Promise<void>
}

/** An HTTP server on 127.0.0.1:`port` that answers 200 and remembers every request's headers and body. */
export async function startRecorder(port: number): Promise<Recorder> {
  const seen: Seen[] = []
  const server: Server = createServer((req, res) => {
    const entry = { method: req.method ?? '', url: req.url ?? '', headers: req.headers, body: '' }
    seen.push(entry)
    req.setEncoding('utf8')
    req.on('data', (chunk: string) => {
      entry.body += chunk
    })
    req.on('end', () => res.writeHead(200, { 'content-type': 'application/json' }).end('{"recorded":true}'))
  })
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(port, '127.0.0.1', resolve)
  })
  const close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections()
      server.close(() => resolve())
    })
  return {
    port,
    seen,
    last: () => {
      const s = seen.at(-1)
      if (!s) throw new Error('nothing reached the recorder')
      return s
    },
    close,
    [Symbol.asyncDispose]: close,
  }
}

export interface CaddyProcess extends AsyncDisposable {
  child: ChildProcess
  /** Caddy's local CA root (PEM), once it has started. */
  ca: string
  /** Its intermediate (PEM): what signs the site's certificate, sent with it in the TLS handshake. */
  intermediate: string
  output(): string
}

/**
 * Runs `caddy run` on `config` with its data and config under `dataDir` (so its CA is made there, not
 * in this user's home), and waits until it answers HTTPS for `hostname` on `httpsPort`.
 */
export async function startCaddy(options: {
  config: string
  dataDir: string
  hostname: string
  httpsPort: number
}): Promise<CaddyProcess> {
  const rootCrt = join(options.dataDir, 'caddy/pki/authorities/local/root.crt')
  const {
    caddy,
    ready,
    [Symbol.asyncDispose]: stop,
  } = await runCaddy({
    config: options.config,
    dataDir: options.dataDir,
    timeoutMs: 30_000,
    ready: async () => {
      const ca = await readFile(rootCrt, 'utf8').catch(() => undefined)
      if (!ca) return undefined
      const answers = await https({ hostname: options.hostname, port: options.httpsPort, ca }, '/chat').then(
        (r) => r.status === 308,
        () => false,
      )
      if (!answers) return undefined
      return { ca, intermediate: await readFile(rootCrt.replace(/root\.crt$/, 'intermediate.crt'), 'utf8') }
    },
  })
  return { child: caddy.child, ...ready, output: caddy.output, [Symbol.asyncDispose]: stop }
}
