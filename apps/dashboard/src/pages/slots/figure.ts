/**
 * A live figure for the slot card: the number with its unit, or "—" when there is none to show. A
 * slot whose answers carried no token counts (a stream without usage, a stopped stream) has no
 * tokens/s: the API sends null, and anything that is not a finite number reads as "—" too, never
 * as "0" or "NaN" — a rate that was never measured is not a rate of zero.
 */
export function figure(value: number | null | undefined, unit = ''): string {
  return typeof value === 'number' && Number.isFinite(value) ? `${value}${unit}` : '—'
}
