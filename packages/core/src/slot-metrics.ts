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
  /**
   * The last minute in {@link SERIES_BUCKETS} buckets of `bucket_ms`, oldest first (sparklines).
   * The API always sends it; optional only so that figures written by hand (tests) may leave it out.
   */
  series?: SlotMetricsSeries
}

/** Buckets in a series, and their width (ms): 12 × 5 s = the last minute. */
export const SERIES_BUCKETS = 12
export const SERIES_BUCKET_MS = 5_000

/** A slot's last minute, bucket by bucket, oldest first (the bucket of now last). */
export interface SlotMetricsSeries {
  bucket_ms: number
  /** Requests that finished in each bucket. */
  requests: number[]
  /** Generation speed in each bucket (completion tokens per second); null where no request generated. */
  tokens_per_second: (number | null)[]
}

export interface SlotMetricsEvent {
  at: number
  slots: Record<string, SlotLiveMetrics>
}
