/** Small statistics for the benchmark's reports. */

/** The `q` quantile (0–1) of `values` by nearest rank; NaN when empty. */
export function quantile(values: readonly number[], q: number): number {
  if (values.length === 0) return Number.NaN
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))]!
}

/** The sample with the median `key` (whole samples, so figures measured together stay together). */
export function medianBy<T>(samples: readonly T[], key: (t: T) => number): T {
  const sorted = [...samples].sort((a, b) => key(a) - key(b))
  return sorted[Math.floor(sorted.length / 2)]!
}

export function median(values: readonly number[]): number {
  return quantile(values, 0.5)
}

/** `n` with `digits` decimals, or `n/a`. */
export function fmt(n: number | undefined, digits = 0): string {
  return n !== undefined && Number.isFinite(n) ? n.toFixed(digits) : 'n/a'
}

/** `a / b` as `0.97×`, or `n/a`. */
export function ratio(a: number | undefined, b: number | undefined): string {
  return a !== undefined && b !== undefined && Number.isFinite(a) && Number.isFinite(b) && b !== 0
    ? `${(a / b).toFixed(2)}×`
    : 'n/a'
}
