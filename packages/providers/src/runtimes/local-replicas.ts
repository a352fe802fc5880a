/**
 * Replicas on one box (docs/scale-out.md, "Replicas on one box"): `replicas = N` for the `process` and
 * `container` runtimes starts N upstreams of the same model behind one handle, one per entry of
 * `devices` (`["cuda:0", "cuda:1"]`: each sees only its GPU, through the backend's own variable), or
 * N on the slot's backend. The handle lists them as `members`, so the slot probes, routes (by cache or
 * by load), fails over and stops them like a swarm service's tasks.
 *
 * Each replica is the inner runtime's own upstream under the name `<slot>.r<i>` (its log and pid
 * file, its container), all with one key. A replica that exits leaves the members (its requests go
 * to the others) and is started again after 1 s, 2 s, 4 s … (at most 5 times in a row; a run of a
 * minute resets the count), as a swarm replaces a task; once none runs, the handle's `exited`
 * settles and the slot's restart policy applies. Replicas a previous run left are stopped at
 * recovery, never adopted.
 */
import type { UpstreamExit, UpstreamHandle, UpstreamMember } from '@svc/core'
import type { Runtime, RuntimeStartRequest } from './runtime'
import { newUpstreamKey } from './upstream-key'

/** The variable each GPU backend's engines read to see only some GPUs. */
export const DEVICE_VARIABLES = {
  cuda: 'CUDA_VISIBLE_DEVICES',
  rocm: 'HIP_VISIBLE_DEVICES',
  vulkan: 'GGML_VK_VISIBLE_DEVICES',
} as const

/** Most leftover replicas looked for at recovery (the slot config's own limit). */
const MAX_REPLICAS = 32

/** The name a replica's upstream runs under (its log, pid file or container). */
export function replicaName(slot: string, index: number): string {
  return `${slot}.r${index + 1}`
}

/** The environment that shows a replica only its device (`cuda:1` → `CUDA_VISIBLE_DEVICES=1`); none for `cpu`. */
export function deviceEnv(device: string | undefined): Record<string, string> | undefined {
  const m = device ? /^(cuda|rocm|vulkan):(\d+(?:,\d+)*)$/.exec(device) : null
  if (!m) return undefined
  return { [DEVICE_VARIABLES[m[1] as keyof typeof DEVICE_VARIABLES]]: m[2]! }
}

/** How many local upstreams a start request asks for. */
export function replicaCount(req: Pick<RuntimeStartRequest, 'replicas' | 'devices'>): number {
  return req.devices?.length ?? req.replicas ?? 1
}

/** Wraps a local runtime (process, container) so that a start with several replicas runs them all. */
export function withLocalReplicas(inner: Runtime): Runtime {
  return {
    ...inner,
    async start(req) {
      const count = replicaCount(req)
      if (count <= 1 && !req.devices) return inner.start(req)
      const apiKey = newUpstreamKey()
      const started = await Promise.allSettled(
        Array.from({ length: count }, (_, i) => {
          const env = deviceEnv(req.devices?.[i])
          return inner.start({ ...req, slot: replicaName(req.slot, i), apiKey, ...(env ? { env } : {}) })
        }),
      )
      const handles = started.flatMap((r) => (r.status === 'fulfilled' ? [r.value] : []))
      const failed = started.find((r): r is PromiseRejectedResult => r.status === 'rejected')
      if (failed) {
        await Promise.all(handles.map((h) => h.stop(2_000)))
        throw failed.reason
      }
      const restart = (i: number, signal: AbortSignal) => {
        const env = deviceEnv(req.devices?.[i])
        return inner.start({
          ...req,
          slot: replicaName(req.slot, i),
          apiKey,
          signal,
          ...(env ? { env } : {}),
        })
      }
      return replicaHandle(handles, req.devices, restart)
    },
    async recover(slot, isHealthy, signal) {
      if (!inner.recover) return undefined
      // Looked for in parallel (a pid file read, or one engine query, each): recovery runs at start-up.
      const leftovers = Array.from({ length: MAX_REPLICAS }, (_, i) =>
        inner.recover?.(replicaName(slot, i), async () => false, signal),
      )
      await Promise.all(leftovers)
      return inner.recover(slot, isHealthy, signal)
    },
  }
}

/** Restarts of one replica in a row before it stays down; a run this long resets the count (ms). */
const MAX_RESTARTS = 5
const RESET_AFTER_MS = 60_000

function replicaHandle(
  first: UpstreamHandle[],
  devices: readonly string[] | undefined,
  restart: (index: number, signal: AbortSignal) => Promise<UpstreamHandle>,
): UpstreamHandle {
  const current = [...first]
  const running = new Set(first)
  const stopping = new AbortController()
  let resolveExit!: (e: UpstreamExit) => void
  const exited = new Promise<UpstreamExit>((r) => {
    resolveExit = r
  })
  const reasons: string[] = current.map(() => '')
  const watch = (i: number, h: UpstreamHandle, restarts: number, since: number) => {
    void h.exited.then(async (exit) => {
      running.delete(h)
      reasons[i] = exit.reason
      if (running.size === 0) {
        stopping.abort() // none runs: the slot's own restart policy takes over
        const all = reasons.map((r, k) => `replica-${k + 1}: ${r || 'stopped'}`).join('; ')
        resolveExit({ code: null, signal: null, reason: `every replica exited (${all})` })
        return
      }
      if (stopping.signal.aborted) return
      // Started again with backoff; a start that fails counts as a try too.
      for (let count = Date.now() - since > RESET_AFTER_MS ? 0 : restarts; count < MAX_RESTARTS; count++) {
        await new Promise((r) => setTimeout(r, 1_000 * 2 ** count))
        if (stopping.signal.aborted) return
        const next = await restart(i, stopping.signal).catch(() => undefined)
        if (!next) continue
        if (stopping.signal.aborted) {
          void next.stop(2_000)
          return
        }
        current[i] = next
        running.add(next)
        watch(i, next, count + 1, Date.now())
        return
      }
    })
  }
  for (const [i, h] of current.entries()) watch(i, h, 0, Date.now())
  const live = () => current.filter((h) => running.has(h))
  const head = current[0]!
  return {
    base: head.base,
    ...(head.apiKey !== undefined ? { apiKey: head.apiKey } : {}),
    exited,
    describe: () => ({
      replicas: current.length,
      pids: current
        .map((h) => (running.has(h) ? (h.describe().pid ?? h.describe().container ?? '?') : '-'))
        .join(' '),
    }),
    logs: () => current.flatMap((h, i) => h.logs().map((line) => `[replica-${i + 1}] ${line}`)),
    async memoryUse() {
      const uses = await Promise.all(live().map((h) => h.memoryUse?.().catch(() => undefined)))
      const known = uses.filter((u) => u !== undefined)
      if (known.length === 0) return undefined
      const sum = (f: (u: (typeof known)[number]) => number) => known.reduce((n, u) => n + f(u), 0)
      const parts = known.every((u) => u.parts)
        ? { parts: { host: sum((u) => u.parts!.host), gpu: sum((u) => u.parts!.gpu) } }
        : {}
      return { bytes: sum((u) => u.bytes), by: known[0]!.by, ...parts }
    },
    async members(): Promise<UpstreamMember[]> {
      return current.flatMap((h, i) =>
        running.has(h)
          ? [{ id: `replica-${i + 1}`, base: h.base, ...(devices?.[i] ? { node: devices[i] } : {}) }]
          : [],
      )
    },
    async stop(graceMs) {
      stopping.abort()
      await Promise.all(current.map((h) => h.stop(graceMs)))
      if (running.size === 0) await exited
    },
  }
}
