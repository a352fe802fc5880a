/** What the soak watches in the svc process: resident memory, open descriptors, event-loop delay. */
import { readdir, readFile } from 'node:fs/promises'

/** Resident set size of `pid` in bytes (VmRSS of /proc/<pid>/status). */
export async function rssBytes(pid: number): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8')
  const kb = Number(/^VmRSS:\s+(\d+) kB$/m.exec(status)?.[1] ?? Number.NaN)
  return kb * 1024
}

/** Open file descriptors of `pid` (entries of /proc/<pid>/fd). */
export async function openFds(pid: number): Promise<number> {
  return (await readdir(`/proc/${pid}/fd`)).length
}

export interface LoopDelay {
  /** p99 of the event-loop delay since the previous scrape (s). */
  p99: number
  /** Largest single delay since the previous scrape (s). */
  max: number
  /** V8 heap in use (bytes; prom-client's `nodejs_heap_size_used_bytes`). */
  heapUsed: number
  /** V8 heap committed (bytes; `nodejs_heap_size_total_bytes`): used plus free and fragmented pages. */
  heapTotal: number
  /** Memory held by V8 for objects outside its heap: Buffers, ArrayBuffers (`nodejs_external_memory_bytes`). */
  external: number
}

/**
 * Scrapes `/api/metrics` and reads svc's own measurement of its event loop (prom-client's
 * `nodejs_eventloop_lag_*`: perf_hooks.monitorEventLoopDelay, reset at every scrape, so each
 * reading covers the time since the previous one) and its V8 memory at that moment.
 */
export async function loopDelay(apiUrl: string): Promise<LoopDelay> {
  const res = await fetch(`${apiUrl}/api/metrics`, { signal: AbortSignal.timeout(30_000) })
  const text = await res.text()
  const value = (name: string) => Number(new RegExp(`^${name} (\\S+)$`, 'm').exec(text)?.[1] ?? Number.NaN)
  return {
    p99: value('nodejs_eventloop_lag_p99_seconds'),
    max: value('nodejs_eventloop_lag_max_seconds'),
    heapUsed: value('nodejs_heap_size_used_bytes'),
    heapTotal: value('nodejs_heap_size_total_bytes'),
    external: value('nodejs_external_memory_bytes'),
  }
}
