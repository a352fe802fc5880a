import { Client, type Dispatcher, Pool } from 'undici'
import { WarmConnector } from './warm-connector'

/**
 * One pool of kept-alive connections per upstream origin, through undici's dispatcher: connections
 * to llama-server and hosted services are reused across requests (a new TCP connection per request
 * would cost more than the whole hop), and undici's low-level `dispatch` costs measurably less per
 * request than `http.request` with an Agent (`pnpm bench`, the proxy section, docs/architecture.md).
 * undici also honours a server's `Keep-Alive: timeout=…` hint, so an idle connection the upstream
 * is about to close is not reused. Each pool also keeps one connection ready for the next request
 * that needs a new one (warm-connector.ts): llama-server closes its connection after every streamed
 * answer.
 */
export class UpstreamPools {
  private readonly pools = new Map<string, { pool: Pool; warm: WarmConnector }>()
  /**
   * The pool of each URL object seen: the hop's URLs are built once per upstream and path
   * (`upstreamUrl`), and `url.origin` makes a new string at each read.
   */
  private readonly byUrl = new Map<URL, Pool>()

  get(url: URL): Dispatcher {
    let pool = this.byUrl.get(url)
    if (pool) return pool
    let entry = this.pools.get(url.origin)
    if (!entry) {
      // No body timeout: a model may think for minutes between two tokens; the wait for the head of
      // the answer is bounded per hop (`headersTimeout`, the slot's or upstream's timeout).
      const warm = new WarmConnector()
      entry = { pool: new Pool(url.origin, { bodyTimeout: 0, connect: warm.connect }), warm }
      this.pools.set(url.origin, entry)
    }
    pool = entry.pool
    if (this.byUrl.size > 1000) this.byUrl.clear()
    this.byUrl.set(url, pool)
    return pool
  }

  /**
   * Closes the pool of `origin` (its ready connection at once) and forgets it; the next request to
   * it gets a new pool. For an upstream about to stop, once its requests are drained: cpp-httplib's
   * shutdown waits for the connections it holds open (~7 ms more per stop with one idle).
   */
  forget(origin: string): void {
    const entry = this.pools.get(origin)
    if (!entry) return
    this.pools.delete(origin)
    for (const [url, pool] of this.byUrl) if (pool === entry.pool) this.byUrl.delete(url)
    entry.warm.close()
    void entry.pool.destroy().catch(() => undefined)
  }

  destroy(): void {
    for (const { pool, warm } of this.pools.values()) {
      warm.close()
      void pool.destroy().catch(() => undefined)
    }
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
