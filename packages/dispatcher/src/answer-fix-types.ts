/** The shape of an answer fix (answer-fix.ts), a leaf: the fixes and the relays import it, not each other. */

/** One SSE event: its `event:` name (absent when the upstream wrote none) and its parsed JSON data. */
export interface FixedEvent {
  event?: string
  data: Record<string, unknown>
}

/** The correction of one request's answer (state is per request: one fix, one answer). */
export interface AnswerFix {
  /** A whole 2xx JSON answer, corrected (changed in place or replaced). */
  json(body: Record<string, unknown>): Record<string, unknown>
  /** One SSE event of a 2xx stream: the events to write in its place, in order (usually itself, corrected). */
  event(event: FixedEvent): FixedEvent[]
}
