import type { Clock } from '../events'
import type { SlotDriver, UpstreamHandle } from '../slot-driver'

export interface WarmUpOptions {
  driver: Pick<SlotDriver, 'probe' | 'warmupTimeoutMs'>
  clock: Clock
  handle: UpstreamHandle
  signal: AbortSignal
  intervalMs: number
}

/**
 * Probes the upstream until it is healthy (warming → ready). Rejects when the warm-up deadline passes,
 * when the upstream exits meanwhile (with its exit reason), or when `signal` aborts.
 */
export async function warmUp(o: WarmUpOptions): Promise<void> {
  const deadline = o.clock.now() + o.driver.warmupTimeoutMs
  let exit: string | null = null
  void o.handle.exited.then((e) => {
    exit = e.reason
  })
  for (;;) {
    o.signal.throwIfAborted()
    if (exit) throw new Error(`upstream exited while warming: ${exit}`)
    const probe = new AbortController()
    const onAbort = () => probe.abort()
    o.signal.addEventListener('abort', onAbort, { once: true })
    const ok = await o.driver.probe(o.handle, probe.signal)
    o.signal.removeEventListener('abort', onAbort)
    if (exit) throw new Error(`upstream exited while warming: ${exit}`)
    if (ok) return
    if (o.clock.now() >= deadline) {
      throw new Error(
        `upstream did not become healthy within ${Math.round(o.driver.warmupTimeoutMs / 1000)} s`,
      )
    }
    await o.clock.sleep(o.intervalMs, o.signal)
  }
}
