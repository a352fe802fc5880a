import type { Clock } from '../clock'
import type { SlotDriver, UpstreamHandle } from '../slot-driver'

export interface WarmUpOptions {
  driver: Pick<SlotDriver, 'probe' | 'warmupTimeoutMs'>
  clock: Clock
  handle: UpstreamHandle
  signal: AbortSignal
  /** The longest wait between probes; the first waits are shorter (FIRST_PROBE_GAP_MS, growing). */
  intervalMs: number
}

/**
 * The first wait between probes (ms), growing by half each time up to `intervalMs`: a small model is
 * healthy a few tens of ms after its process starts, and a flat 200 ms would add up to 200 ms to
 * every load; growing keeps the overshoot under half the time already waited, and a slow model is
 * still probed only every `intervalMs`.
 */
const FIRST_PROBE_GAP_MS = 5

/**
 * Probes the upstream until it is healthy (warming → ready). Rejects when the warm-up deadline passes,
 * when the upstream exits meanwhile (with its exit reason), or when `signal` aborts.
 */
export async function warmUp(o: WarmUpOptions): Promise<void> {
  const deadline = o.clock.now() + o.driver.warmupTimeoutMs
  let gap = Math.min(FIRST_PROBE_GAP_MS, o.intervalMs)
  let exit: string | null = null
  // An upstream that will say when it is ready (its log line) is probed when it says so, and until
  // then only every `intervalMs` (the fallback): each probe is a connection and a request that the
  // starting engine answers 503 on the same cores. Once it has spoken, or without its word, the
  // probes come after growing gaps.
  let hint = o.handle.saysReady
  void o.handle.exited.then((e) => {
    exit = e.reason
  })
  for (;;) {
    if (hint && (await pause(o, o.intervalMs, hint))) hint = undefined
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
    if (hint) continue
    await o.clock.sleep(gap, o.signal)
    gap = Math.min(gap * 1.5, o.intervalMs)
  }
}

/** Waits `ms`, or less when `hint` settles first (then true). Rejects when `o.signal` aborts. */
async function pause(o: WarmUpOptions, ms: number, hint: Promise<void>): Promise<boolean> {
  const done = new AbortController()
  try {
    return await Promise.race([
      o.clock.sleep(ms, AbortSignal.any([o.signal, done.signal])).then(() => false),
      hint.then(() => true),
    ])
  } finally {
    done.abort() // the sleep that lost
  }
}
