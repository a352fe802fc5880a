import { Agent as HttpAgent } from 'node:http'
import { Agent as HttpsAgent } from 'node:https'

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
