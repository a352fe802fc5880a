/**
 * One upstream shared by several slots (FastFlowLM: the chat, embed and stt slots on the NPU use one
 * `flm serve` — the NPU runs one process at a time).
 *
 * `createSharedUpstreams()` is a small ref-counted registry: `acquire` starts the upstream for a key
 * the first time (concurrent callers share that one start) and hands every caller its own lease; a
 * lease's `stop` releases only that lease, and the upstream is stopped when the last lease goes. A
 * new start for a key waits until the previous upstream of that key is fully gone.
 *
 * `shareRuntime(inner, …)` wraps any `Runtime` with it, so a slot driver needs no change: the inner
 * runtime is asked to start the upstream under the key instead of the slot name (pid file, container
 * labels), and `recover` removes whatever a previous run left under the key — shared upstreams are
 * restarted rather than adopted, because which slots shared them is not known after a restart.
 */
import { SvcError, type UpstreamExit, type UpstreamHandle } from '@svc/core'
import type { Runtime, RuntimeStartRequest } from '../runtimes/runtime'

export interface Holder<M> {
  owner: string
  meta: M
}

export interface AcquireRequest<M> {
  key: string
  owner: string
  meta: M
  start: () => Promise<UpstreamHandle>
  /** Refuses to join (a reason) given the current holders; checked before starting or sharing. */
  admit?: (holders: readonly Holder<M>[]) => string | undefined
}

export interface SharedUpstreams<M = unknown> {
  /** A lease on the upstream under `key`. Rejects with the start's error, or `backend.unavailable`. */
  acquire(request: AcquireRequest<M>): Promise<UpstreamHandle>
  /** Who holds leases on `key` now. */
  holders(key: string): Holder<M>[]
  /** Runs `fn` once per key for the registry's life (recovery); `acquire` on that key waits for it. */
  once(key: string, fn: () => Promise<void>): Promise<void>
}

interface Entry<M> {
  handle: Promise<UpstreamHandle>
  leases: Map<number, Holder<M>>
}

export function createSharedUpstreams<M = unknown>(): SharedUpstreams<M> {
  const entries = new Map<string, Entry<M>>()
  const draining = new Map<string, Promise<void>>()
  const onces = new Map<string, Promise<void>>()
  let nextLease = 1

  const lease = (key: string, entry: Entry<M>, real: UpstreamHandle, id: number): UpstreamHandle => {
    let release!: (exit: UpstreamExit) => void
    const released = new Promise<UpstreamExit>((resolve) => {
      release = resolve
    })
    let stopping: Promise<void> | undefined
    return {
      base: real.base,
      exited: Promise.race([real.exited, released]),
      logs: () => real.logs(),
      describe: () => ({
        ...real.describe(),
        shared_by: [...entry.leases.values()].map((h) => h.owner).join(','),
      }),
      stop(graceMs) {
        stopping ??= (async () => {
          entry.leases.delete(id)
          release({ code: 0, signal: null, reason: 'released its share of the upstream' })
          if (entry.leases.size > 0 || entries.get(key) !== entry) return
          entries.delete(key)
          const stopped = real.stop(graceMs).finally(() => {
            if (draining.get(key) === stopped) draining.delete(key)
          })
          draining.set(key, stopped)
          await stopped
        })()
        return stopping
      },
    }
  }

  return {
    async acquire(request) {
      await onces.get(request.key)?.catch(() => undefined)
      await draining.get(request.key)
      let entry = entries.get(request.key)
      const reason = request.admit?.(entry ? [...entry.leases.values()] : [])
      if (reason) throw new SvcError('backend.unavailable', reason)
      const id = nextLease++
      if (!entry) {
        const created: Entry<M> = { handle: request.start(), leases: new Map() }
        entries.set(request.key, created)
        created.handle.then(
          (real) =>
            void real.exited.then(() => {
              if (entries.get(request.key) === created) entries.delete(request.key)
            }),
          () => {
            if (entries.get(request.key) === created) entries.delete(request.key)
          },
        )
        entry = created
      }
      entry.leases.set(id, { owner: request.owner, meta: request.meta })
      try {
        return lease(request.key, entry, await entry.handle, id)
      } catch (error) {
        entry.leases.delete(id)
        throw error
      }
    },
    holders(key) {
      return [...(entries.get(key)?.leases.values() ?? [])]
    },
    once(key, fn) {
      let done = onces.get(key)
      if (!done) {
        done = fn()
        onces.set(key, done)
      }
      return done
    },
  }
}

export interface ShareRuntimeOptions {
  /** The registry key, also the name the inner runtime labels the upstream with. */
  key: string
  registry: SharedUpstreams<RuntimeStartRequest>
  /** Refuses a slot given the slots already sharing (e.g. a second, different LLM on the NPU). */
  admit?: (
    request: RuntimeStartRequest,
    holders: readonly Holder<RuntimeStartRequest>[],
  ) => string | undefined
}

/** Wraps `inner` so every slot that starts through it shares one upstream under `options.key`. */
export function shareRuntime(inner: Runtime, options: ShareRuntimeOptions): Runtime {
  const { key, registry } = options
  const asKey = (req: RuntimeStartRequest): RuntimeStartRequest => ({ ...req, slot: key })
  return {
    kind: inner.kind,
    ...(inner.needsPull ? { needsPull: (req: RuntimeStartRequest) => inner.needsPull!(asKey(req)) } : {}),
    ...(inner.pull
      ? { pull: (req: RuntimeStartRequest, onProgress) => inner.pull!(asKey(req), onProgress) }
      : {}),
    start(req) {
      return registry.acquire({
        key,
        owner: req.slot,
        meta: req,
        start: () => inner.start(asKey(req)),
        admit: (holders) =>
          options.admit?.(
            req,
            holders.filter((h) => h.owner !== req.slot),
          ),
      })
    },
    async recover(_slot, _isHealthy, signal) {
      await registry.once(key, async () => {
        const left = await inner.recover?.(key, async () => false, signal)
        await left?.handle.stop(5_000) // recover stops unhealthy leftovers itself; this is belt and braces
      })
      return undefined
    },
  }
}
