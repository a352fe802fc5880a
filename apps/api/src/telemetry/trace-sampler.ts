/**
 * The sampler the standard variables name (`OTEL_TRACES_SAMPLER`, `OTEL_TRACES_SAMPLER_ARG`: the
 * OpenTelemetry SDK environment spec). The JS trace SDK 3.x no longer reads them itself; this is the
 * spec's table, nothing more. Default (unset or unknown): `parentbased_always_on`, so a client's
 * `traceparent` with its sampled flag decides for the requests it sends.
 */
import type * as Sdk from '@opentelemetry/sdk-trace'

export function samplerFromEnv(
  sdk: typeof Sdk,
  name: string | undefined,
  arg: string | undefined,
): Sdk.Sampler {
  const parsed = Number(arg)
  const ratio = () => new sdk.TraceIdRatioBasedSampler(Number.isFinite(parsed) ? parsed : 1)
  switch (name?.trim().toLowerCase()) {
    case 'always_on':
      return new sdk.AlwaysOnSampler()
    case 'always_off':
      return new sdk.AlwaysOffSampler()
    case 'traceidratio':
      return ratio()
    case 'parentbased_always_off':
      return new sdk.ParentBasedSampler({ root: new sdk.AlwaysOffSampler() })
    case 'parentbased_traceidratio':
      return new sdk.ParentBasedSampler({ root: ratio() })
    default:
      return new sdk.ParentBasedSampler({ root: new sdk.AlwaysOnSampler() })
  }
}
