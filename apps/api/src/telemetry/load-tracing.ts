/**
 * Optional OpenTelemetry traces (docs/operations.md, "Traces"). `loadTracing` is the only way in: it
 * imports the OpenTelemetry SDK with `await import()` (the API's bundle keeps these as dynamic imports
 * of node_modules: scripts/build-server.mjs, LAZY), so a server started without an OTLP endpoint never
 * loads a line of it (`tracesWanted`, env.ts).
 *
 * The SDK reads its own standard variables: the exporter `OTEL_EXPORTER_OTLP_ENDPOINT` (`/v1/traces`
 * appended), `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`, `_HEADERS`, `_TIMEOUT`, `_COMPRESSION`; the resource
 * `OTEL_SERVICE_NAME` and `OTEL_RESOURCE_ATTRIBUTES`. The batch processor's `OTEL_BSP_*` and the
 * sampler's `OTEL_TRACES_SAMPLER`(`_ARG`), which the 3.x trace SDK leaves to its caller, are read here.
 * Export is OTLP/HTTP with protobuf bodies, the spec's default for HTTP.
 */
import type { EventBus, SvcEvents } from '@svc/core'
import { type Logger, SVC_VERSION } from '@svc/core/node'
import { createRequestTracer, type RequestTracer } from './request-tracer'
import { samplerFromEnv } from './trace-sampler'

export interface LoadTracingOptions {
  bus: EventBus<SvcEvents>
  logger: Logger
  /** The environment svc started with (`ServeEnv.processEnv`): the `OTEL_BSP_*` and sampler variables. */
  environment: Readonly<Record<string, string | undefined>>
}

/**
 * `loadTracing`, but a failure (the SDK missing from node_modules, a bad variable it throws on) is
 * logged and svc serves without traces instead of refusing to start: traces are an aid, not a duty.
 */
export function startTracing(options: LoadTracingOptions): Promise<RequestTracer | undefined> {
  return loadTracing(options).catch((error: unknown) => {
    options.logger.error('OpenTelemetry traces could not start; serving without them', { error })
    return undefined
  })
}

export async function loadTracing(options: LoadTracingOptions): Promise<RequestTracer> {
  const [api, core, resources, sdk, otlp] = await Promise.all([
    import('@opentelemetry/api'),
    import('@opentelemetry/core'),
    import('@opentelemetry/resources'),
    import('@opentelemetry/sdk-trace'),
    import('@opentelemetry/exporter-trace-otlp-proto'),
  ])
  const { logger } = options
  // The SDK's own complaints (an export refused, an unreachable collector) in svc's log.
  const warn = (message: string, ...args: unknown[]) =>
    logger.warn(`opentelemetry: ${message}`, args.length ? { details: args.map(String) } : {})
  const quiet = () => {}
  api.diag.setLogger(
    { error: warn, warn, info: quiet, debug: quiet, verbose: quiet },
    { logLevel: api.DiagLogLevel.WARN, suppressOverrideMessage: true },
  )
  const text = (name: string) => options.environment[name]?.trim() || undefined
  const env = (name: string) => {
    const n = Number(text(name))
    return Number.isFinite(n) && n > 0 ? n : undefined
  }
  const processor = new sdk.BatchSpanProcessor({
    exporter: new otlp.OTLPTraceExporter(),
    ...defined('scheduledDelayMillis', env('OTEL_BSP_SCHEDULE_DELAY')),
    ...defined('exportTimeoutMillis', env('OTEL_BSP_EXPORT_TIMEOUT')),
    ...defined('maxQueueSize', env('OTEL_BSP_MAX_QUEUE_SIZE')),
    ...defined('maxExportBatchSize', env('OTEL_BSP_MAX_EXPORT_BATCH_SIZE')),
  })
  const resource = resources
    .defaultResource()
    .merge(resources.resourceFromAttributes({ 'service.name': 'svc', 'service.version': SVC_VERSION }))
    .merge(resources.detectResources({ detectors: [resources.envDetector] }))
  const provider = new sdk.TracerProvider({
    resource,
    sampler: samplerFromEnv(sdk, text('OTEL_TRACES_SAMPLER'), text('OTEL_TRACES_SAMPLER_ARG')),
    spanProcessors: [processor],
  })
  logger.info('OpenTelemetry traces on', {
    service: String(resource.attributes['service.name']),
  })
  return createRequestTracer({
    api,
    tracer: provider.getTracer('svc', SVC_VERSION),
    propagator: new core.W3CTraceContextPropagator(),
    bus: options.bus,
    shutdown: () => provider.shutdown(),
  })
}

/** `{ [key]: value }` when the variable was set, else nothing (the SDK's default stands). */
function defined<K extends string>(key: K, value: number | undefined): { [P in K]?: number } {
  return value === undefined ? {} : ({ [key]: value } as { [P in K]?: number })
}
