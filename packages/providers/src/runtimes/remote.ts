/**
 * The `remote` runtime: the upstream already runs at a configured URL (e.g. a ComfyUI on another
 * box). Nothing is launched or stopped. A watchdog probes it while loaded; after `failuresToExit`
 * failed probes in a row it counts as exited, so the slot goes offline like a crashed process.
 */
import type { UpstreamExit, UpstreamHandle } from '@svc/core'
import type { Runtime } from './runtime'

export interface RemoteRuntimeOptions {
  url: string
  watchdogMs?: number
  failuresToExit?: number
}

export function createRemoteRuntime(options: RemoteRuntimeOptions): Runtime {
  return {
    kind: 'remote',
    async start(req) {
      const base = new URL(options.url)
      let resolveExit!: (e: UpstreamExit) => void
      const exited = new Promise<UpstreamExit>((r) => {
        resolveExit = r
      })
      let failures = 0
      let stopped = false
      const timer = setInterval(async () => {
        const ok = await req.provider.healthProbe(base, AbortSignal.timeout(5_000))
        failures = ok ? 0 : failures + 1
        if (failures >= (options.failuresToExit ?? 3) && !stopped) {
          stopped = true
          clearInterval(timer)
          resolveExit({
            code: null,
            signal: null,
            reason: `remote upstream at ${base.origin} stopped answering its health check`,
          })
        }
      }, options.watchdogMs ?? 5_000)
      timer.unref()
      return {
        base,
        exited,
        describe: () => ({ url: base.origin }),
        logs: () => [],
        async stop() {
          if (stopped) return
          stopped = true
          clearInterval(timer)
          resolveExit({ code: 0, signal: null, reason: 'detached from remote upstream' })
        },
      } satisfies UpstreamHandle
    },
  }
}
