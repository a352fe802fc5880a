import type { ClientRequest } from 'node:http'
import { Agent as HttpAgent } from 'node:http'
import { Agent as HttpsAgent } from 'node:https'

/** How many times one request is sent again after finding its pooled connection closed. */
export const MAX_STALE_RETRIES = 3

/**
 * Whether `req` failed because the kept-alive connection it was given had been closed by the
 * upstream meanwhile (the classic keep-alive race): a reset or broken pipe on a reused socket. The
 * upstream never read the request, so it may be sent again (Node's documentation suggests exactly
 * this for `request.reusedSocket`). A fresh connection that fails is a real failure.
 */
export function closedWhileIdle(req: ClientRequest, error: NodeJS.ErrnoException): boolean {
  return req.reusedSocket && (error.code === 'ECONNRESET' || error.code === 'EPIPE')
}

/**
 * One keep-alive agent per upstream origin: connections to llama-server and hosted services are
 * reused across requests (a new TCP connection per request would cost more than the whole hop).
 */
export class AgentPool {
  private readonly agents = new Map<string, HttpAgent>()

  get(url: URL): HttpAgent {
    let agent = this.agents.get(url.origin)
    if (!agent) {
      const options = {
        keepAlive: true,
        keepAliveMsecs: 10_000,
        maxFreeSockets: 256,
        scheduling: 'lifo' as const,
      }
      agent = url.protocol === 'https:' ? new HttpsAgent(options) : new HttpAgent(options)
      this.agents.set(url.origin, agent)
    }
    return agent
  }

  destroy(): void {
    for (const agent of this.agents.values()) agent.destroy()
    this.agents.clear()
  }
}
