/** Small statistics for the benchmark's reports. */

/** The `q` quantile (0–1) of `values` by nearest rank; NaN when empty. */
export function quantile(values: readonly number[], q: number): number {
  if (values.length === 0) return Number.NaN
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))]!
}

/** The arithmetic mean; NaN when empty. */
export function mean(values: readonly number[]): number {
  return values.length ? values.reduce((a, b) => a + b, 0) / values.length : Number.NaN
}

/**
 * The middle value, or the mean of the two middle ones for an even count (NaN when empty). Not the
 * nearest-rank quantile: of 24 per-round ratios that takes the 12th, the lower middle one, and read a
 * goal's ratio about 1 % low (the gap between the two middle rounds) in every run.
 */
export function median(values: readonly number[]): number {
  if (values.length === 0) return Number.NaN
  const sorted = [...values].sort((a, b) => a - b)
  const mid = sorted.length >> 1
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2
}

/** `n` with `digits` decimals, or `n/a`. */
export function fmt(n: number | undefined, digits = 0): string {
  return n !== undefined && Number.isFinite(n) ? n.toFixed(digits) : 'n/a'
}

/**
 * Two peers compared round by round: `a[i] / b[i]` (or `a[i] - b[i]` with `difference`) for each round
 * in which both were measured, and the median of those. On a shared machine the speed of the whole box
 * drifts by a quarter within a minute (the same process's CPU time per request, measured from /proc);
 * a ratio of two medians taken at different moments carries that drift, a ratio of two runs made
 * back to back in one round carries only what changed in those seconds.
 */
export interface Paired {
  value: number
  rounds: number[]
}

export function paired(a: readonly number[], b: readonly number[], difference = false): Paired {
  const rounds: number[] = []
  for (let i = 0; i < Math.min(a.length, b.length); i++) {
    const x = a[i]!
    const y = b[i]!
    if (Number.isFinite(x) && Number.isFinite(y) && (difference || y !== 0))
      rounds.push(difference ? x - y : x / y)
  }
  return { value: rounds.length ? median(rounds) : Number.NaN, rounds }
}

/** A paired ratio as `0.94× (rounds 0.90–1.01)`, or `n/a`. */
export function pairedText(p: Paired | undefined): string {
  if (!p || !Number.isFinite(p.value)) return 'n/a'
  const lo = Math.min(...p.rounds)
  const hi = Math.max(...p.rounds)
  return `${p.value.toFixed(2)}× (rounds ${lo.toFixed(2)}–${hi.toFixed(2)})`
}

/**
 * The order of the peers in round `round` (from 1): as listed in odd rounds, reversed in even ones,
 * so peers listed next to each other always run back to back and each runs first as often as last.
 */
export function roundOrder<T>(peers: readonly T[], round: number): T[] {
  return round % 2 === 1 ? [...peers] : [...peers].reverse()
}
