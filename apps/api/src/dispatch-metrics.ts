import type { DispatchRecord } from '@svc/dispatcher'
import type { HotMetrics } from './hot-metrics'

/**
 * Metrics of the inference hop (kept as hot metrics, see hot-metrics.ts): requests and duration by
 * route, slot and status; the upstream's time to first byte; svc's own overhead before the upstream
 * request goes out; tokens from `usage`.
 */
export function createDispatchMetrics(hot: HotMetrics): (record: DispatchRecord) => void {
  const requests = hot.counter(
    'svc_v1_requests_total',
    'Inference requests by route, slot (or upstream:<name>) and status.',
    ['route', 'slot', 'status'],
  )
  const duration = hot.histogram(
    'svc_v1_request_duration_seconds',
    'Inference request duration, arrival to last byte, by route, slot and status.',
    ['route', 'slot', 'status'],
    [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300],
  )
  const ttfb = hot.histogram(
    'svc_upstream_ttfb_seconds',
    'Upstream time to first byte (response headers) by route and slot.',
    ['route', 'slot'],
    [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
  )
  const overhead = hot.histogram(
    'svc_proxy_overhead_seconds',
    "svc's own time before the upstream request goes out (body, validation, resolution, lease; waiting for a loading slot included).",
    ['route'],
    [0.00005, 0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.1, 1, 10],
  )
  const tokens = hot.counter(
    'svc_tokens_total',
    'Tokens reported in responses (usage), by slot and kind (prompt or completion).',
    ['slot', 'kind'],
  )
  return (r) => {
    const labels = [r.route, r.slot, String(r.status)]
    requests.add(labels)
    duration.observe(labels, r.seconds)
    if (r.ttfbSeconds !== undefined) ttfb.observe([r.route, r.slot], r.ttfbSeconds)
    if (r.overheadSeconds !== undefined) overhead.observe([r.route], r.overheadSeconds)
    if (r.usage) {
      tokens.add([r.slot, 'prompt'], r.usage.promptTokens)
      tokens.add([r.slot, 'completion'], r.usage.completionTokens)
    }
  }
}
