import { createTokenStore } from '@svc/auth'
import { type Peer, startSvc } from './peers'

/** svc with auth on, called with a `v1-only` bearer token (the "auth on (bearer)" row). */
export function authPeer(upstream: string): Promise<Peer> {
  return startSvc(upstream, {
    async token(configDir) {
      const store = createTokenStore({ configDir, watch: false, flushIntervalMs: 0 })
      try {
        return (await store.create({ label: 'bench', scope: 'v1-only' })).token
      } finally {
        await store.close()
      }
    },
  })
}
