/** Counts of what happened during the soak, by kind: successes with latencies, errors by kind. */

export interface KindStats {
  ok: number
  latenciesMs: number[]
}

export class Tally {
  readonly kinds = new Map<string, KindStats>()
  /** Errors nobody expected, by `<kind>: <what>` → count. Any of them fails the soak. */
  readonly unexpected = new Map<string, number>()
  /** Outcomes that are errors on the wire but what the step asserts (a revoked token refused). */
  readonly expected = new Map<string, number>()

  ok(kind: string, ms: number): void {
    const k = this.kinds.get(kind) ?? { ok: 0, latenciesMs: [] }
    k.ok++
    // Bounded: a reservoir of the last 5000 is plenty for p50/p99 and never grows with the run.
    if (k.latenciesMs.length >= 5000) k.latenciesMs.shift()
    k.latenciesMs.push(ms)
    this.kinds.set(kind, k)
  }

  /** One example message per unexpected error kind (the first seen). */
  readonly examples = new Map<string, string>()

  fail(kind: string, what: string, example = ''): void {
    const key = `${kind}: ${what}`
    this.unexpected.set(key, (this.unexpected.get(key) ?? 0) + 1)
    if (example && !this.examples.has(key)) this.examples.set(key, example.slice(0, 300))
  }

  expect(kind: string, what: string): void {
    const key = `${kind}: ${what}`
    this.expected.set(key, (this.expected.get(key) ?? 0) + 1)
  }

  get unexpectedCount(): number {
    return [...this.unexpected.values()].reduce((a, b) => a + b, 0)
  }
}

export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return Number.NaN
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!
}
