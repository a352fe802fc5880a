/**
 * A slot's live figures over the last minute: published on the bus as `slot.metrics` every few
 * seconds while something changed, forwarded by `GET /api/events`, and shown in `GET /api/slots`.
 */
/** One slot's figures (null: nothing to measure yet). */
export interface SlotLiveMetrics {
  /** Inference requests that finished in the last 60 s. */
  requestsPerMin: number
  /** Median duration of those requests (ms). */
  p50Ms: number | null
  /** Completion tokens (from `usage`) per second of those requests' time, over the last minute. */
  tokensPerS: number | null
  /** Epoch ms the current upstream became ready (uptime = now − readyAt); null when not running. */
  readyAt: number | null
}

export interface SlotMetricsEvent {
  at: number
  slots: Record<string, SlotLiveMetrics>
}
