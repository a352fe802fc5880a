/**
 * The last `size` finished requests, kept as columns (typed arrays for figures, plain arrays for the
 * strings a request already had): recording one writes a dozen slots and keeps no object, so the hot
 * path leaves nothing behind per request for the collector to trace. Rows are made only when read.
 */

/** One finished request, as the log records it (figures in ms; NaN: unknown). */
export interface RingRow {
  id: string
  at: number
  route: string
  slot: string
  model: string
  token: string
  identity: string
  outcome: string
  status: number
  queueMs: number
  loadMs: number
  ttftMs: number
  durationMs: number
  tokensIn: number
  tokensOut: number
  tokensPerS: number
}

const NUMBERS = [
  'at',
  'status',
  'queueMs',
  'loadMs',
  'ttftMs',
  'durationMs',
  'tokensIn',
  'tokensOut',
  'tokensPerS',
] as const
const STRINGS = ['id', 'route', 'slot', 'model', 'token', 'identity', 'outcome'] as const

export class ActivityRing {
  private readonly numbers: Record<(typeof NUMBERS)[number], Float64Array>
  private readonly strings: Record<(typeof STRINGS)[number], string[]>
  private start = 0
  private count = 0

  constructor(readonly size: number) {
    this.numbers = Object.fromEntries(NUMBERS.map((k) => [k, new Float64Array(size)])) as never
    this.strings = Object.fromEntries(STRINGS.map((k) => [k, new Array<string>(size).fill('')])) as never
  }

  get length(): number {
    return this.count
  }

  /** Writes one row; the oldest is overwritten once the ring is full. */
  push(row: RingRow): void {
    const i = (this.start + this.count) % this.size
    for (const k of NUMBERS) this.numbers[k][i] = row[k]
    for (const k of STRINGS) this.strings[k][i] = row[k]
    if (this.count < this.size) this.count++
    else this.start = (this.start + 1) % this.size
  }

  /** The rows, newest first, each made as it is read. */
  *newestFirst(): Generator<RingRow> {
    for (let k = this.count - 1; k >= 0; k--) {
      const i = (this.start + k) % this.size
      const row = {} as RingRow
      for (const n of NUMBERS) row[n] = this.numbers[n][i]!
      for (const s of STRINGS) row[s] = this.strings[s][i]!
      yield row
    }
  }
}
