/**
 * Connections an `upgrade` handler took over (WebSockets). They are no longer the HTTP server's to
 * close: `server.close()` waits for them, and `closeIdleConnections`/`closeAllConnections` do not see
 * them. `serveHttp` tracks them per server; `closeHttp` ends each one (the handler's goodbye, e.g. a
 * WebSocket close 1001 "going away", or a plain destroy), waits for them within its grace period and
 * then destroys what is left.
 */

/** The part of a `node:net` Socket this uses. */
export interface UpgradedSocket {
  destroy(): void
  once(event: 'close', listener: () => void): unknown
}

/** Given to serveHttp's `onUpgrade` with each socket: how the server's stop ends it. */
export interface UpgradeStop {
  /**
   * Registers what the server's stop does for this socket instead of destroying it at once: say
   * goodbye in the socket's own protocol (a WebSocket's close 1001 "going away") so that the peer
   * learns why. Called once, when `closeHttp` begins (at once if it already has); the socket is
   * destroyed anyway if it has not closed when the grace period ends. A later call replaces the
   * goodbye. Without one (a handler still checking the request, a protocol it cannot end politely),
   * the stop destroys the socket at once.
   */
  onStop(goodbye: () => void): void
}

export class UpgradedSockets {
  private readonly open = new Map<UpgradedSocket, (() => void) | undefined>()
  private stopping = false
  private drained: (() => void) | undefined

  /**
   * Tracks `socket` until it closes; answers its handle for the handler. While the server stops, a
   * new upgrade is destroyed at once and answers undefined (the handler is not called).
   */
  take(socket: UpgradedSocket): UpgradeStop | undefined {
    if (this.stopping) {
      socket.destroy()
      return undefined
    }
    this.open.set(socket, undefined)
    socket.once('close', () => {
      this.open.delete(socket)
      if (this.stopping && this.open.size === 0) this.drained?.()
    })
    return {
      onStop: (goodbye) => {
        if (!this.open.has(socket)) return
        if (this.stopping) return sayGoodbye(socket, goodbye)
        this.open.set(socket, goodbye)
      },
    }
  }

  /** The stop's first step: ends every socket politely where it can; resolves when all have closed. Idempotent. */
  goAway(): Promise<void> {
    if (!this.stopping) {
      this.stopping = true
      for (const [socket, goodbye] of this.open) {
        if (goodbye) sayGoodbye(socket, goodbye)
        else socket.destroy()
      }
    }
    if (this.open.size === 0) return Promise.resolve()
    return new Promise((resolve) => {
      const before = this.drained
      this.drained = () => {
        before?.()
        resolve()
      }
    })
  }

  /** The stop's last step (the grace period is over): destroys every socket still open. */
  cut(): void {
    for (const socket of this.open.keys()) socket.destroy()
  }
}

function sayGoodbye(socket: UpgradedSocket, goodbye: () => void): void {
  try {
    goodbye()
  } catch {
    socket.destroy()
  }
}

const byServer = new WeakMap<object, UpgradedSockets>()

/** The upgraded sockets of `server` (made on first use; serveHttp and closeHttp share them). */
export function upgradedSocketsOf(server: object): UpgradedSockets {
  let sockets = byServer.get(server)
  if (!sockets) {
    sockets = new UpgradedSockets()
    byServer.set(server, sockets)
  }
  return sockets
}
