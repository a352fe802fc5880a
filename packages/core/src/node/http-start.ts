/**
 * The start-up every svc HTTP server shares (the API, its Ollama port, the chat server): the program's
 * entry (`runServer`: read the environment, log, start, stop on signals, exit codes), the listener
 * (`serveHttp`: connection guard, parser-error answers, upgrades, listen) and the stop (`closeHttp`:
 * stop accepting, drain, cut). Each app keeps only what differs: its environment, its handler, its stop.
 */
import { createLogger, type Logger, type LogLevel } from './logger'
import { guardServer } from './server-guard'
import { stopOnSignals } from './stop-on-signals'
import { type UpgradeStop, upgradedSocketsOf } from './upgraded-sockets'

export type { UpgradeStop } from './upgraded-sockets'

// The parts of `node:http`'s Server this uses, so that core imports no I/O module (an http.Server fits).
export interface HttpServerLike {
  maxConnections: number
  // biome-ignore lint/suspicious/noExplicitAny: Node's listeners take event-specific arguments
  on(event: string, listener: (...args: any[]) => void): unknown
  once(event: 'error', listener: (error: Error) => void): unknown
  off(event: 'error', listener: (error: Error) => void): unknown
  listen(port: number, host: string, callback: () => void): unknown
  address(): { address: string; family: string; port: number } | string | null
  close(callback?: (error?: Error) => void): unknown
  closeIdleConnections(): void
  closeAllConnections(): void
}

/** A program's environment, as Node gives it to the program's one reader. */
export type ProcessEnv = Record<string, string | undefined>

/** What every server's parsed environment carries for its start-up. */
export interface ServerEnvBase {
  host: string
  port: number
  logLevel: LogLevel
}

export interface RunServerOptions<Env extends ServerEnvBase> {
  /** The program's name in its error lines (`svc`, `svc chat`). */
  name: string
  /** The environment, handed in by the program's one environment reader (serve.ts). */
  environment: ProcessEnv
  /** Parses the environment; throws an Error whose message is fit for a person. */
  readEnv(environment: ProcessEnv): Env
  /** Builds and starts the server; rejects when it cannot (the port is taken, a file is broken). */
  start(options: { env: Env; logger: Logger }): Promise<{ stop(): Promise<void> }>
}

/**
 * A server program's `main`: a bad environment prints `<name>: <why>` and exits 2; a start that fails
 * logs `cannot start` and exits 1; SIGTERM/SIGINT stop it and exit 0 (installed before it listens).
 */
export async function runServer<Env extends ServerEnvBase>(options: RunServerOptions<Env>): Promise<void> {
  let env: Env
  try {
    env = options.readEnv(options.environment)
  } catch (error) {
    process.stderr.write(`${options.name}: ${(error as Error).message}\n`)
    process.exit(2)
  }
  const logger = createLogger({ level: env.logLevel })
  const starting = options.start({ env, logger })
  stopOnSignals(starting, logger) // before it listens
  try {
    await starting
  } catch (error) {
    logger.error('cannot start', { host: env.host, port: env.port, error })
    process.exit(1)
  }
}

export interface ServeHttpOptions<Req extends { readonly socket: object }, Res> {
  port: number
  host: string
  /** Open connections served at once (`guardServer`: 503 `server.busy` past it). */
  maxConnections: number
  handler: (req: Req, res: Res) => void
  /** Requests Node's HTTP parser refuses, `(error, socket)`; unset: Node's bare 400. */
  // biome-ignore lint/suspicious/noExplicitAny: Node's socket type lives in node:net
  onClientError?: (error: any, socket: any) => void
  /**
   * Upgrade requests (WebSocket), `(req, socket, head)` as Node's `upgrade` event gives them, and the
   * socket's `UpgradeStop`; they bypass `handler` and the connection guard. The server keeps each
   * socket until it closes and ends it when `closeHttp` runs: with the goodbye the handler registered
   * (`stop.onStop(() => ws.close(1001, …))`), else by destroying it; within the grace period either
   * way. Unset: Node closes them.
   */
  // biome-ignore lint/suspicious/noExplicitAny: Node's socket type lives in node:net
  onUpgrade?: (req: Req, socket: any, head: Buffer, stop: UpgradeStop) => void
}

/** Where a server listens: its URL (wildcard hosts kept as given) and the bound port. */
export interface Listening {
  /** `http://<host>:<port>` with the host as configured (IPv6 in brackets), e.g. `http://0.0.0.0:8080`. */
  url: string
  port: number
  /** The bound address as Node reports it (`0.0.0.0`, `::`, `127.0.0.1`). */
  address: string
  family: string
}

/**
 * Guards `server` (connection cap, lingering close), attaches the handlers and listens on `port`
 * (0: any free one) and `host`. Rejects when the port is taken.
 */
export async function serveHttp<Req extends { readonly socket: object }, Res>(
  server: HttpServerLike,
  options: ServeHttpOptions<Req, Res>,
): Promise<Listening> {
  // biome-ignore lint/suspicious/noExplicitAny: guardServer's response shape; an http.ServerResponse fits
  server.on('request', guardServer(server, options.handler as any, options))
  if (options.onClientError) server.on('clientError', options.onClientError)
  const { onUpgrade } = options
  if (onUpgrade) {
    const upgraded = upgradedSocketsOf(server)
    // biome-ignore lint/suspicious/noExplicitAny: Node's socket type lives in node:net
    server.on('upgrade', (req: Req, socket: any, head: Buffer) => {
      const stop = upgraded.take(socket)
      if (stop) onUpgrade(req, socket, head, stop)
    })
  }
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(options.port, options.host, () => {
      server.off('error', reject)
      resolve()
    })
  })
  const bound = server.address()
  const port = typeof bound === 'object' && bound ? bound.port : options.port
  return {
    url: httpUrl(options.host, port),
    port,
    address: typeof bound === 'object' && bound ? bound.address : options.host,
    family: typeof bound === 'object' && bound ? bound.family : 'IPv4',
  }
}

/** `http://host:port`, an IPv6 host in brackets. */
export function httpUrl(host: string, port: number): string {
  return `http://${host.includes(':') ? `[${host}]` : host}:${port}`
}

/**
 * Stops `server` accepting, closes idle kept-alive connections and ends upgraded ones (each with its
 * handler's goodbye, else destroyed), waits for `until` (default: every open request done) and for
 * the upgraded connections to close, for at most `graceMs`, then cuts what is left and resolves when
 * the server is closed.
 */
export async function closeHttp(
  server: HttpServerLike,
  options: { graceMs: number; until?: Promise<unknown> },
): Promise<void> {
  const closed = new Promise<void>((resolve) => server.close(() => resolve()))
  server.closeIdleConnections()
  const upgraded = upgradedSocketsOf(server)
  const gone = upgraded.goAway()
  let timer: ReturnType<typeof setTimeout> | undefined
  const grace = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, options.graceMs)
  })
  await Promise.race([Promise.all([options.until ?? closed, gone]), grace])
  clearTimeout(timer)
  server.closeAllConnections()
  upgraded.cut()
  await closed
}
