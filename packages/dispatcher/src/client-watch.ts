import type { ServerResponse } from 'node:http'

/**
 * Whether the client went away before its response finished. An AbortSignal is made only when
 * someone asks for one (a wait for a loading slot, a translator): EventTarget-based signals cost more
 * than the rest of a proxied request, and the ready path never needs one. Listeners are kept in an
 * array made on first use (one per hop in practice), not a Set per request.
 */
export class ClientWatch {
  gone = false
  private controller: AbortController | undefined
  private listeners: (() => void)[] | undefined

  constructor(res: ServerResponse) {
    res.once('close', () => {
      if (res.writableFinished) return
      this.gone = true
      this.controller?.abort(new Error('client closed the connection'))
      const listeners = this.listeners
      this.listeners = undefined
      if (listeners) for (const listener of listeners) listener()
    })
  }

  get signal(): AbortSignal {
    if (!this.controller) {
      this.controller = new AbortController()
      if (this.gone) this.controller.abort(new Error('client closed the connection'))
    }
    return this.controller.signal
  }

  /** Calls `fn` when the client goes away (at once if it already has); returns the unsubscribe. */
  onGone(fn: () => void): () => void {
    if (this.gone) {
      fn()
      return () => {}
    }
    if (this.listeners) this.listeners.push(fn)
    else this.listeners = [fn]
    return () => {
      const at = this.listeners?.indexOf(fn) ?? -1
      if (at >= 0) this.listeners!.splice(at, 1)
    }
  }
}
