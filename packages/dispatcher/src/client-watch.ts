import type { ServerResponse } from 'node:http'

/**
 * Whether the client went away before its response finished. An AbortSignal is made only when
 * someone asks for one (a wait for a loading slot, a translator): EventTarget-based signals cost more
 * than the rest of a proxied request, and the ready path never needs one.
 */
export class ClientWatch {
  gone = false
  private controller: AbortController | undefined
  private readonly listeners = new Set<() => void>()

  constructor(res: ServerResponse) {
    res.once('close', () => {
      if (res.writableFinished) return
      this.gone = true
      this.controller?.abort(new Error('client closed the connection'))
      for (const listener of this.listeners) listener()
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
    this.listeners.add(fn)
    return () => {
      this.listeners.delete(fn)
    }
  }
}
