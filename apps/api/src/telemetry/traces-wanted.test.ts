import { describe, expect, it } from 'vitest'
import { tracesWanted } from './traces-wanted'

const wanted = (env: Record<string, string>) => tracesWanted((name) => env[name])

describe('tracesWanted', () => {
  it('is off without an OTLP endpoint, whatever else is set', () => {
    expect(wanted({})).toBe(false)
    expect(wanted({ OTEL_EXPORTER_OTLP_ENDPOINT: ' ' })).toBe(false)
    expect(wanted({ OTEL_SERVICE_NAME: 'svc', OTEL_TRACES_EXPORTER: 'otlp' })).toBe(false)
  })

  it('is on with the general or the traces endpoint', () => {
    expect(wanted({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://localhost:4318' })).toBe(true)
    expect(wanted({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://localhost:4318/v1/traces' })).toBe(true)
  })

  it('stays off when the SDK or its trace exporter is turned off', () => {
    const endpoint = { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://localhost:4318' }
    expect(wanted({ ...endpoint, OTEL_SDK_DISABLED: 'TRUE' })).toBe(false)
    expect(wanted({ ...endpoint, OTEL_TRACES_EXPORTER: 'none' })).toBe(false)
    expect(wanted({ ...endpoint, OTEL_SDK_DISABLED: 'false' })).toBe(true)
  })
})
