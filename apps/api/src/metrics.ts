import { Counter, collectDefaultMetrics, Histogram, Registry } from 'prom-client'
import { createHotMetrics, type HotMetrics } from './hot-metrics'

/**
 * The API's Prometheus registry. One per app instance (no module singleton), so tests can build
 * several apps in one process without "metric already registered" clashes.
 */
export interface ApiMetrics {
  registry: Registry
  httpRequests: Counter<'method' | 'route' | 'status'>
  httpDuration: Histogram<'method' | 'route' | 'status'>
  /** The inference hot path's metrics (rendered after the registry's). */
  hot: HotMetrics
}

export interface MetricsOptions {
  /** Collect process metrics (cpu, memory, event loop lag). Default true. */
  processMetrics?: boolean
}

export function createMetrics(options: MetricsOptions = {}): ApiMetrics {
  const registry = new Registry()
  if (options.processMetrics ?? true) collectDefaultMetrics({ register: registry })
  const httpRequests = new Counter({
    name: 'svc_http_requests_total',
    help: 'HTTP requests answered by svc, by method, route pattern and status.',
    labelNames: ['method', 'route', 'status'] as const,
    registers: [registry],
  })
  const httpDuration = new Histogram({
    name: 'svc_http_request_duration_seconds',
    help: 'Time from request to response headers, by method, route pattern and status.',
    labelNames: ['method', 'route', 'status'] as const,
    buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60],
    registers: [registry],
  })
  return { registry, httpRequests, httpDuration, hot: createHotMetrics() }
}
