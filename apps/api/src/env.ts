import { type EdgeEnv, readEdgeEnv } from '@svc/auth'
import { parseDurationMs } from '@svc/core'
import {
  envCount,
  envFlag,
  envLogLevel,
  envPort,
  type LogLevel,
  resolvePaths,
  type SvcPaths,
} from '@svc/core/node'
import { type MemoryDeviceOptions, parseDeviceGb } from '@svc/providers/memory'
import { type HubConfig, hubConfig } from '@svc/providers/models'
import { type CorsOrigins, parseCorsOrigins } from './cors'
import { fallbackOf, type ServeVariable } from './env-variables'
import type { RealtimeLimits } from './realtime/realtime-upgrade'
import { tracesWanted } from './telemetry/traces-wanted'
import { readUsageEnv, type UsageEnv } from './usage/usage-env'

/**
 * The environment svc reads, parsed once at startup (docs/configuration.md; every name is declared in
 * env-variables.ts). serve.ts hands it the process's environment; everything else gets this object.
 */
export interface ServeEnv extends EdgeEnv {
  host: string
  port: number
  /** `SVC_OLLAMA_PORT`: a second listener serving only the Ollama API (docs/ollama.md); unset: none. */
  ollamaPort: number | undefined
  paths: SvcPaths
  authEnabled: boolean
  logLevel: LogLevel
  /** How long SIGTERM waits for in-flight requests before closing connections (ms). */
  drainMs: number
  /** How long a request waits for a loading slot before 503 (ms; SVC_QUEUE_TIMEOUT in s). */
  queueTimeoutMs: number
  /** How long the upstream may take to start answering (ms; SVC_UPSTREAM_TIMEOUT in s). */
  upstreamTimeoutMs: number
  /** How long an unload waits for in-flight requests before stopping the upstream (ms; SVC_UNLOAD_GRACE in s). */
  unloadGraceMs: number
  /** `SVC_CORS_ORIGINS`: who may read `/v1/*` answers from a browser page (default `*`; `none`). */
  corsOrigins: CorsOrigins
  /** SVC_MEMORY_RESERVE_GB and SVC_MEMORY_BUDGET_GB: the memory budget per device. */
  memory: MemoryDeviceOptions
  /** `SVC_MAX_CONNECTIONS`: open connections served at once (503 `server.busy` past it). Default 512. */
  maxConnections: number
  /** `SVC_MAX_STREAMS`: `/api/events` subscribers and log followers at once. Default 64. */
  maxStreams: number
  /** `SVC_REALTIME_*`: the Realtime API's limits (sessions per caller, session length, input buffer). */
  realtime: RealtimeLimits
  /**
   * `SVC_LOAD_ON_REQUEST` and `SVC_UNLOAD_AFTER` (a duration, `0` never): the defaults for slots
   * whose file does not set `load_on_request` / `unload_after`.
   */
  demand: { loadOnRequest: boolean; unloadAfterMs: number }
  /** The usage ledger and quotas (SVC_USAGE_*, SVC_IDENTITY_QUOTA). */
  usage: UsageEnv
  /** `SVC_PROVIDER_MODULES`, split at commas: third-party provider modules to load. */
  providerModules: string[]
  /** `SVC_MODELS_MANIFEST`: another model catalogue; unset: `manifests/models.toml`. */
  modelsManifest: string | undefined
  /** `HF_ENDPOINT` and `HF_TOKEN`: the Hugging Face Hub that `hf.co/…` names resolve against. */
  hub: HubConfig
  /** `SVC_IMAGES_MANIFEST`: another image manifest; unset: `manifests/images.toml`. */
  imagesManifest: string | undefined
  /** `SVC_DASHBOARD_DIR`: another dashboard build (tests); unset: `apps/dashboard/dist`. */
  dashboardDir: string | undefined
  /** An OTLP endpoint is set (`OTEL_EXPORTER_OTLP_ENDPOINT`, …): load the SDK and send traces. */
  traces: boolean
  /**
   * The environment svc was started with, copied once and frozen. Host upstreams get only the part of
   * it they need (PATH, HOME, LD_LIBRARY_PATH, GPU tuning: `@svc/providers`' upstream-env.ts); engines
   * are found with it (`SVC_LLAMA_SERVER`, `SVC_WHISPER_SERVER`, PATH, `SVC_CACHE_DIR`); hosted
   * upstreams' keys are read from it (`api_key_env` in upstreams.toml names any variable).
   */
  processEnv: Readonly<Env>
}

type Env = Record<string, string | undefined>

/** Parses the environment; throws an Error with a message fit for a person on bad values. */
export function readServeEnv(env: Env): ServeEnv {
  // Only declared names: a variable read here and missing from the table (and the docs) cannot compile.
  const read = (name: ServeVariable): string | undefined => env[name]
  const flag = (name: ServeVariable) => envFlag(name, read(name)?.trim() || fallbackOf(name), false)
  const count = (name: ServeVariable) => envCount(name, read(name), Number(fallbackOf(name)))
  const secondsMs = (name: ServeVariable) => seconds(name, read(name)) * 1000
  const authEnabled = flag('SVC_AUTH_ENABLED')
  const edge = readEdgeEnv(read)
  const unloadAfter = read('SVC_UNLOAD_AFTER') || fallbackOf('SVC_UNLOAD_AFTER')
  const unloadAfterMs = parseDurationMs(unloadAfter)
  if (unloadAfterMs === undefined)
    throw new Error(`SVC_UNLOAD_AFTER must be a duration like "15m", "90s" or 0, got "${unloadAfter}"`)
  const ollamaPort = read('SVC_OLLAMA_PORT')
  return {
    // With auth on, forwarded identities are only safe when nobody but the proxy can reach svc.
    host: read('SVC_HOST') || (authEnabled ? '127.0.0.1' : '0.0.0.0'),
    port: envPort('SVC_PORT', read('SVC_PORT'), Number(fallbackOf('SVC_PORT'))),
    ollamaPort: ollamaPort ? envPort('SVC_OLLAMA_PORT', ollamaPort, 0) : undefined,
    paths: resolvePaths(env),
    authEnabled,
    ...edge,
    logLevel: envLogLevel(read('SVC_LOG_LEVEL') || fallbackOf('SVC_LOG_LEVEL')),
    drainMs: secondsMs('SVC_DRAIN_SECONDS'),
    queueTimeoutMs: secondsMs('SVC_QUEUE_TIMEOUT'),
    upstreamTimeoutMs: secondsMs('SVC_UPSTREAM_TIMEOUT'),
    unloadGraceMs: secondsMs('SVC_UNLOAD_GRACE'),
    corsOrigins: parseCorsOrigins(read('SVC_CORS_ORIGINS')),
    memory: {
      reserveGb: parseDeviceGb('SVC_MEMORY_RESERVE_GB', read('SVC_MEMORY_RESERVE_GB')),
      budgetGb: parseDeviceGb('SVC_MEMORY_BUDGET_GB', read('SVC_MEMORY_BUDGET_GB')),
    },
    maxConnections: count('SVC_MAX_CONNECTIONS'),
    maxStreams: count('SVC_MAX_STREAMS'),
    realtime: {
      maxSessions: count('SVC_REALTIME_MAX_SESSIONS'),
      maxSessionSeconds: count('SVC_REALTIME_MAX_SESSION_SECONDS'),
      maxBufferSeconds: count('SVC_REALTIME_MAX_BUFFER_SECONDS'),
    },
    demand: { loadOnRequest: flag('SVC_LOAD_ON_REQUEST'), unloadAfterMs },
    usage: readUsageEnv(read),
    providerModules: (read('SVC_PROVIDER_MODULES') ?? '')
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean),
    modelsManifest: read('SVC_MODELS_MANIFEST') || undefined,
    hub: hubConfig({ HF_ENDPOINT: read('HF_ENDPOINT'), HF_TOKEN: read('HF_TOKEN') }),
    imagesManifest: read('SVC_IMAGES_MANIFEST') || undefined,
    dashboardDir: read('SVC_DASHBOARD_DIR') || undefined,
    traces: tracesWanted(read),
    processEnv: Object.freeze({ ...env }),
  }
}

function seconds(name: ServeVariable, value: string | undefined): number {
  if (value === undefined || value === '') return Number(fallbackOf(name))
  const n = Number(value)
  if (!Number.isFinite(n) || n < 0)
    throw new Error(`${name} must be a number of seconds >= 0, got "${value}"`)
  return n
}
