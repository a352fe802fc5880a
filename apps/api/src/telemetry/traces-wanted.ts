/**
 * Whether svc sends OpenTelemetry traces: only when an OTLP endpoint is configured the standard way
 * (`OTEL_EXPORTER_OTLP_ENDPOINT`, or `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT` for traces alone) and the SDK
 * is not turned off (`OTEL_SDK_DISABLED=true`, `OTEL_TRACES_EXPORTER=none`). Otherwise nothing of the
 * SDK is loaded (docs/operations.md, "Traces").
 */
export function tracesWanted(read: (name: TraceVariable) => string | undefined): boolean {
  const endpoint =
    read('OTEL_EXPORTER_OTLP_TRACES_ENDPOINT')?.trim() || read('OTEL_EXPORTER_OTLP_ENDPOINT')?.trim()
  if (!endpoint) return false
  if (read('OTEL_SDK_DISABLED')?.trim().toLowerCase() === 'true') return false
  return read('OTEL_TRACES_EXPORTER')?.trim().toLowerCase() !== 'none'
}

/** The variables `tracesWanted` reads (declared in env-variables.ts like every other). */
export type TraceVariable =
  | 'OTEL_EXPORTER_OTLP_ENDPOINT'
  | 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT'
  | 'OTEL_SDK_DISABLED'
  | 'OTEL_TRACES_EXPORTER'
