import { Client, type Dispatcher, Pool } from 'undici'

/**
 * One pool of kept-alive connections per upstream origin, through undici's dispatcher: connections
 * to llama-server and hosted services are reused across requests (a new TCP connection per request
 * would cost more than the whole hop), and undici's low-level `dispatch` costs measurably less per
 * request than `http.request` with an Agent (`pnpm bench`, the proxy section, docs/architecture.md).
 * undici also honours a server's `Keep-Alive: timeout=…` hint, so an idle connection the upstream
 * is about to close is not reused.
 */
export class UpstreamPools {
  private readonly pools = new Map<string, Pool>()
  /**
   * The pool of each URL object seen: the hop's URLs are built once per upstream and path
   * (`upstreamUrl`), and `url.origin` makes a new string at each read.
   */
  private readonly byUrl = new Map<URL, Pool>()

  get(url: URL): Dispatcher {
    let pool = this.byUrl.get(url)
    if (pool) return pool
    pool = this.pools.get(url.origin)
    if (!pool) {
      // No body timeout: a model may think for minutes between two tokens; the wait for the head of
      // the answer is bounded per hop (`headersTimeout`, the slot's or upstream's timeout).
      pool = new Pool(url.origin, { bodyTimeout: 0 })
      this.pools.set(url.origin, pool)
    }
    if (this.byUrl.size > 1000) this.byUrl.clear()
    this.byUrl.set(url, pool)
    return pool
  }

  destroy(): void {
    for (const pool of this.pools.values()) void pool.destroy().catch(() => undefined)
    this.pools.clear()
    this.byUrl.clear()
  }
}

/**
 * A dispatcher for one request on a connection of its own (the resend after a kept-alive connection
 * turned out dead); it closes once that request is over.
 */
export function oneShot(url: URL): Dispatcher & { close(): Promise<void> } {
  return new Client(url.origin, { bodyTimeout: 0, pipelining: 0 })
}
