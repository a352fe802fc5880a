import type { DispatchRecord } from '@svc/dispatcher'
import { Counter, Histogram } from 'prom-client'
import type { ApiMetrics } from './metrics'

/**
 * Metrics of the inference hop: requests and duration by route, slot and status; the upstream's
 * time to first byte; svc's own overhead before the upstream request goes out; tokens from `usage`.
 */
export function createDispatchMetrics(metrics: ApiMetrics): (record: DispatchRecord) => void {
  const registers = [metrics.registry]
  const requests = new Counter({
    name: 'svc_v1_requests_total',
    help: 'Inference requests by route, slot (or upstream:<name>) and status.',
    labelNames: ['route', 'slot', 'status'] as const,
    registers,
  })
  const duration = new Histogram({
    name: 'svc_v1_request_duration_seconds',
    help: 'Inference request duration, arrival to last byte, by route, slot and status.',
    labelNames: ['route', 'slot', 'status'] as const,
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300],
    registers,
  })
  const ttfb = new Histogram({
    name: 'svc_upstream_ttfb_seconds',
    help: 'Upstream time to first byte (response headers) by route and slot.',
    labelNames: ['route', 'slot'] as const,
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
    registers,
  })
  const overhead = new Histogram({
    name: 'svc_proxy_overhead_seconds',
    help: "svc's own time before the upstream request goes out (body, validation, resolution, lease; waiting for a loading slot included).",
    labelNames: ['route'] as const,
    buckets: [0.00005, 0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.1, 1, 10],
    registers,
  })
  const tokens = new Counter({
    name: 'svc_tokens_total',
    help: 'Tokens reported in responses (usage), by slot and kind (prompt or completion).',
    labelNames: ['slot', 'kind'] as const,
    registers,
  })
  return (r) => {
    const labels = { route: r.route, slot: r.slot, status: String(r.status) }
    requests.inc(labels)
    duration.observe(labels, r.seconds)
    if (r.ttfbSeconds !== undefined) ttfb.observe({ route: r.route, slot: r.slot }, r.ttfbSeconds)
    if (r.overheadSeconds !== undefined) overhead.observe({ route: r.route }, r.overheadSeconds)
    if (r.usage) {
      tokens.inc({ slot: r.slot, kind: 'prompt' }, r.usage.promptTokens)
      tokens.inc({ slot: r.slot, kind: 'completion' }, r.usage.completionTokens)
    }
  }
}
