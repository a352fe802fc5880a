/**
 * The `remote` runtime: the upstream already runs elsewhere, at the slot's `url` — or at each of its
 * `urls`, replicas serving the same model. Nothing is launched or stopped. The handle lists the URLs
 * as its members, so the slot probes each one (health and latency show in its status), routes every
 * request to a healthy one with the fewest in flight, and goes offline like a crashed process once
 * none has answered for a few rounds.
 */
import type { UpstreamExit, UpstreamHandle, UpstreamMember } from '@svc/core'
import type { Runtime } from './runtime'

export interface RemoteRuntimeOptions {
  /** One URL, or several replicas of the same upstream. */
  urls: readonly string[]
}

export function createRemoteRuntime(options: RemoteRuntimeOptions): Runtime {
  return {
    kind: 'remote',
    async start() {
      // Ids by position (`url-1`, …), not by address: the status shows them to every scope.
      const members: UpstreamMember[] = options.urls.map((url, i) => ({
        id: `url-${i + 1}`,
        base: new URL(url),
      }))
      const first = members[0]
      if (!first) throw new Error('a remote slot needs the url of its upstream')
      let resolveExit!: (e: UpstreamExit) => void
      const exited = new Promise<UpstreamExit>((r) => {
        resolveExit = r
      })
      return {
        base: first.base,
        exited,
        describe: (): Record<string, string> =>
          members.length === 1
            ? { url: first.base.origin }
            : { urls: members.map((m) => m.base.origin).join(' ') },
        logs: () => [],
        members: async () => members,
        async stop() {
          resolveExit({ code: 0, signal: null, reason: 'detached from remote upstream' })
        },
      } satisfies UpstreamHandle
    },
  }
}
