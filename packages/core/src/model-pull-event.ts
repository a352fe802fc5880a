/** A pull started from the Models page (no slot involved): a bus event, forwarded by `GET /api/events`. */
export interface ModelPullEvent {
  model: string
  status: 'pulling' | 'done' | 'failed' | 'cancelled'
  done: number
  total: number | null
  at: number
  error?: string
}
