/**
 * A connection made ahead of need ("preconnect", as Envoy's `preconnect_policy`): an undici
 * connector that keeps one connected, unused socket ready for its origin and hands it out the next
 * time undici needs a connection, opening the next one in the background.
 *
 * Why: llama-server (cpp-httplib) closes the connection after every streamed answer, although it
 * says `Keep-Alive`, so every streamed chat would otherwise wait for a TCP connect and undici's
 * connection setup before its request leaves (0.4–0.8 ms of a ~10 ms tiny-model answer on the
 * bench's box, `pnpm bench` switch section). Kept-alive upstreams rarely ask for a connection, so
 * they rarely get a ready one.
 *
 * Rules:
 * - Plain `http:` only: a ready TLS connection to a hosted service would hold the remote's
 *   resources for nothing most of the time.
 * - At most one ready socket per origin (per connector), made only when undici asked for a
 *   connection, never on a timer: an idle origin costs nothing.
 * - A ready socket is handed out only while younger than {@link READY_MAX_AGE_MS} (the servers svc
 *   starts close an idle connection after 5 s: cpp-httplib, uvicorn, Node) and only if nothing has
 *   arrived on it: bytes or an end on a connection that was never asked anything mean the server
 *   gave up on it.
 * - {@link WarmConnector.close} closes it at once: an engine about to be stopped must not wait on a
 *   connection that will never carry a request (cpp-httplib's shutdown waits for its idle
 *   connections: ~7 ms more per stop measured with one open).
 */
import type { Socket } from 'node:net'
import { buildConnector } from 'undici'

/** A ready socket older than this (ms) is closed rather than used. */
export const READY_MAX_AGE_MS = 4_000

interface Ready {
  /** Null while it connects. */
  socket: Socket | null
  /** `performance.now()` when its connect began (ms). */
  madeAt: number
  /** Set once it may not be handed out (an end, bytes, an error, closed, too old, handed out). */
  spent: boolean
  onReadable(): void
  onClose(): void
}

export class WarmConnector {
  private readonly base = buildConnector({})
  private ready: Ready | null = null
  private closed = false

  /** `maxAgeMs`: how long a ready socket may wait for its request (default {@link READY_MAX_AGE_MS}). */
  constructor(private readonly maxAgeMs = READY_MAX_AGE_MS) {}

  /** The connector undici's Pool calls (`connect` option). */
  readonly connect: buildConnector.connector = (options, callback) => {
    if (options.protocol !== 'http:') return this.base(options, callback)
    const ready = this.take()
    if (ready) queueMicrotask(() => callback(null, ready))
    else this.base(options, callback)
    this.prepare(options)
  }

  /** Stops for good (the pool is gone): the ready socket is closed and none is made again. */
  close(): void {
    this.closed = true
    const ready = this.ready
    this.ready = null
    if (ready) spend(ready)
  }

  private take(): Socket | null {
    const ready = this.ready
    if (!ready?.socket || ready.spent) return null
    this.ready = null
    const { socket } = ready
    if (performance.now() - ready.madeAt > this.maxAgeMs || socket.destroyed) {
      spend(ready)
      return null
    }
    ready.spent = true
    socket.removeListener('readable', ready.onReadable)
    socket.removeListener('close', ready.onClose)
    return socket
  }

  private prepare(options: buildConnector.Options): void {
    if (this.closed || this.ready) return
    const ready: Ready = { socket: null, madeAt: performance.now(), spent: false, onReadable, onClose }
    this.ready = ready
    const forget = () => {
      if (this.ready === ready) this.ready = null
    }
    function onReadable() {
      forget()
      spend(ready)
    }
    function onClose() {
      forget()
      ready.spent = true
    }
    this.base(options, (error, socket) => {
      if (error || !socket) return forget()
      ready.socket = socket
      if (ready.spent) return void socket.destroy()
      // A 'readable' listener reads nothing: it only learns of an end or of bytes sent unasked.
      socket.on('readable', onReadable)
      socket.once('close', onClose)
    })
  }
}

function spend(ready: Ready): void {
  ready.spent = true
  ready.socket?.destroy()
}
