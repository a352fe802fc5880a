/**
 * The last `size` finished requests, kept as columns (typed arrays for figures, plain arrays for the
 * strings a request already had): recording one writes sixteen slots and keeps no object, so the hot
 * path leaves nothing behind per request for the collector to trace. Rows are made only when read.
 * Straight-line code on named fields: a loop over field names costs microseconds (keyed loads).
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

export class ActivityRing {
  private readonly id: string[]
  private readonly route: string[]
  private readonly slot: string[]
  private readonly model: string[]
  private readonly token: string[]
  private readonly identity: string[]
  private readonly outcome: string[]
  private readonly at: Float64Array
  private readonly status: Float64Array
  private readonly queueMs: Float64Array
  private readonly loadMs: Float64Array
  private readonly ttftMs: Float64Array
  private readonly durationMs: Float64Array
  private readonly tokensIn: Float64Array
  private readonly tokensOut: Float64Array
  private readonly tokensPerS: Float64Array
  private start = 0
  private count = 0

  constructor(readonly size: number) {
    const strings = () => new Array<string>(size).fill('')
    this.id = strings()
    this.route = strings()
    this.slot = strings()
    this.model = strings()
    this.token = strings()
    this.identity = strings()
    this.outcome = strings()
    this.at = new Float64Array(size)
    this.status = new Float64Array(size)
    this.queueMs = new Float64Array(size)
    this.loadMs = new Float64Array(size)
    this.ttftMs = new Float64Array(size)
    this.durationMs = new Float64Array(size)
    this.tokensIn = new Float64Array(size)
    this.tokensOut = new Float64Array(size)
    this.tokensPerS = new Float64Array(size)
  }

  get length(): number {
    return this.count
  }

  /** Writes one row; the oldest is overwritten once the ring is full. */
  push(row: RingRow): void {
    const i = (this.start + this.count) % this.size
    this.id[i] = row.id
    this.route[i] = row.route
    this.slot[i] = row.slot
    this.model[i] = row.model
    this.token[i] = row.token
    this.identity[i] = row.identity
    this.outcome[i] = row.outcome
    this.at[i] = row.at
    this.status[i] = row.status
    this.queueMs[i] = row.queueMs
    this.loadMs[i] = row.loadMs
    this.ttftMs[i] = row.ttftMs
    this.durationMs[i] = row.durationMs
    this.tokensIn[i] = row.tokensIn
    this.tokensOut[i] = row.tokensOut
    this.tokensPerS[i] = row.tokensPerS
    if (this.count < this.size) this.count++
    else this.start = (this.start + 1) % this.size
  }

  /** The rows, newest first, each made as it is read. */
  *newestFirst(): Generator<RingRow> {
    for (let k = this.count - 1; k >= 0; k--) {
      const i = (this.start + k) % this.size
      yield {
        id: this.id[i]!,
        route: this.route[i]!,
        slot: this.slot[i]!,
        model: this.model[i]!,
        token: this.token[i]!,
        identity: this.identity[i]!,
        outcome: this.outcome[i]!,
        at: this.at[i]!,
        status: this.status[i]!,
        queueMs: this.queueMs[i]!,
        loadMs: this.loadMs[i]!,
        ttftMs: this.ttftMs[i]!,
        durationMs: this.durationMs[i]!,
        tokensIn: this.tokensIn[i]!,
        tokensOut: this.tokensOut[i]!,
        tokensPerS: this.tokensPerS[i]!,
      }
    }
  }
}
