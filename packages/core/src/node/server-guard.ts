/**
 * What every svc HTTP listener (the API, the chat server) does at the socket, below the app: a cap
 * on open connections with a clear answer, and a lingering close.
 */
import { renderError, SvcError } from '../errors'

// The shapes of `node:net`'s Socket and Server and `node:http`'s request and response that this
// uses, so that core imports no I/O module (an http.Server and its handler fit them).
interface GuardedSocket {
  readonly writable: boolean
  end(): void
  destroy(): void
  once(event: 'close', listener: () => void): unknown
  destroySoon?: () => void
}
interface GuardedServer {
  maxConnections: number
  on(event: 'connection', listener: (socket: GuardedSocket) => void): unknown
}
interface GuardedRequest {
  readonly socket: object
}
interface GuardedResponse {
  writeHead(status: number, headers: Record<string, string | number>): unknown
  end(body: string): unknown
}

export interface ServerGuardOptions {
  /**
   * Open connections served at once. The next ones are answered 503 `server.busy` (with
   * `Retry-After` and `Connection: close`) without reaching the app; past twice the cap they are
   * dropped unanswered, since even answering costs.
   */
  maxConnections: number
  /**
   * How long a connection the server closes stays half-open for the client to read the answer
   * (default 1 s). Closing at once, with an upload still arriving, resets the connection and the
   * client may lose the answer (a 413); nothing it sends meanwhile is read.
   */
  lingerMs?: number
}

/**
 * Wraps `handler` and guards `server` (call before `listen`): counts connections, answers those
 * over `maxConnections` 503, and closes connections with a bounded linger.
 */
export function guardServer<Req extends GuardedRequest, Res extends GuardedResponse>(
  server: GuardedServer,
  handler: (req: Req, res: Res) => void,
  options: ServerGuardOptions,
): (req: Req, res: Res) => void {
  const lingerMs = options.lingerMs ?? 1_000
  const over = new WeakSet<object>()
  let open = 0
  server.maxConnections = options.maxConnections * 2
  server.on('connection', (socket) => {
    open++
    socket.once('close', () => open--)
    if (open > options.maxConnections) over.add(socket)
    // Node calls this when a response with `Connection: close` is done: send FIN now, cut the
    // connection only after the linger (or as soon as the client closes its side).
    socket.destroySoon = function lingeringClose() {
      if (socket.writable) socket.end()
      const timer = setTimeout(() => socket.destroy(), lingerMs)
      timer.unref()
      socket.once('close', () => clearTimeout(timer))
    }
  })
  return function guarded(req: Req, res: Res) {
    if (!over.has(req.socket)) return handler(req, res)
    const busy = new SvcError(
      'server.busy',
      `more than ${options.maxConnections} open connections; try again`,
      {
        headers: { 'Retry-After': '5', connection: 'close' },
      },
    )
    const rendered = renderError(busy)
    res.writeHead(rendered.status, {
      ...rendered.headers,
      'content-length': Buffer.byteLength(rendered.body),
    })
    res.end(rendered.body)
  }
}
