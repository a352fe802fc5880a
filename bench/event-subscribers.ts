/**
 * Clients of `/api/events` that read and drop what they get, like dashboards open in browser tabs
 * (with auth on: the identity the proxy forwards, which loopback may send).
 */
import { request } from 'node:http'
import type { Peer } from './peers'

export interface Subscribers {
  /** Disconnects them all; resolves with the number of events they received. */
  close(): Promise<number>
}

export async function connectSubscribers(peer: Peer, count: number): Promise<Subscribers> {
  let events = 0
  const requests = await Promise.all(
    Array.from(
      { length: count },
      () =>
        new Promise<ReturnType<typeof request>>((resolve, reject) => {
          const req = request(`${peer.url}/api/events`, {
            headers: { 'x-forwarded-email': 'bench@localhost', accept: 'text/event-stream' },
          })
          req.on('response', (res) => {
            if (res.statusCode !== 200) reject(new Error(`/api/events: ${res.statusCode}`))
            res.setEncoding('utf8')
            res.on('data', (chunk: string) => {
              events += chunk.split('\nevent:').length - 1 + (chunk.startsWith('event:') ? 1 : 0)
            })
            // the snapshot arrived: the subscription is live
            res.once('data', () => resolve(req))
            res.on('error', () => undefined)
          })
          req.on('error', reject)
          req.end()
        }),
    ),
  )
  return {
    async close() {
      for (const req of requests) req.destroy()
      return events
    },
  }
}
