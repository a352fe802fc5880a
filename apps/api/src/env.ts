import { type AddressMatcher, type AllowedHosts, allowedHostsFrom, parseAddressList } from '@svc/auth'
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
import { type CorsOrigins, parseCorsOrigins } from './cors'
import { DEFAULT_MAX_STREAMS } from './events/stream-limit'
import { readUsageEnv, type UsageEnv } from './usage/usage-env'

/** Open connections served at once; each dashboard tab holds one or two, a client a few. */
const DEFAULT_MAX_CONNECTIONS = 512

/** The environment svc reads, parsed once at startup (docs/configuration.md). */
export interface ServeEnv {
  host: string
  port: number
  /** `SVC_OLLAMA_PORT`: a second listener serving only the Ollama API (docs/ollama.md); unset: none. */
  ollamaPort: number | undefined
  paths: SvcPaths
  authEnabled: boolean
  /** `SVC_TRUSTED_PROXIES` (IPs/CIDRs; default 127.0.0.1 and ::1): whose `X-Forwarded-Email` counts. */
  trustedProxies: AddressMatcher
  /** `SVC_PROXY_SECRET`: when set, a forwarded identity also needs `X-Svc-Proxy-Secret` with it. */
  proxySecret: string | undefined
  /** `SVC_ALLOWED_HOSTS` and `SVC_HOSTNAME`: host names svc answers to beyond loopback and its own. */
  allowedHosts: AllowedHosts
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
  /**
   * `SVC_LOAD_ON_REQUEST` and `SVC_UNLOAD_AFTER` (a duration, `0` never): the defaults for slots
   * whose file does not set `load_on_request` / `unload_after`.
   */
  demand: { loadOnRequest: boolean; unloadAfterMs: number }
  /** The usage ledger and quotas (SVC_USAGE_*, SVC_IDENTITY_QUOTA). */
  usage: UsageEnv
}

type Env = Record<string, string | undefined>

/** Parses the environment; throws an Error with a message fit for a person on bad values. */
export function readServeEnv(env: Env): ServeEnv {
  const authEnabled = envFlag('SVC_AUTH_ENABLED', env.SVC_AUTH_ENABLED, false)
  const port = envPort('SVC_PORT', env.SVC_PORT, 8080)
  const logLevel = envLogLevel(env.SVC_LOG_LEVEL)
  const trusted = parseAddressList(env.SVC_TRUSTED_PROXIES)
  if (!trusted.ok) throw new Error(trusted.error)
  const hosts = allowedHostsFrom({ allowedHosts: env.SVC_ALLOWED_HOSTS, hostname: env.SVC_HOSTNAME })
  if (!hosts.ok) throw new Error(hosts.error)
  const drainS = seconds('SVC_DRAIN_SECONDS', env.SVC_DRAIN_SECONDS, 10)
  const queueS = seconds('SVC_QUEUE_TIMEOUT', env.SVC_QUEUE_TIMEOUT, 120)
  const upstreamS = seconds('SVC_UPSTREAM_TIMEOUT', env.SVC_UPSTREAM_TIMEOUT, 600)
  const graceS = seconds('SVC_UNLOAD_GRACE', env.SVC_UNLOAD_GRACE, 30)
  const unloadAfterMs = parseDurationMs(env.SVC_UNLOAD_AFTER || '0')
  if (unloadAfterMs === undefined)
    throw new Error(
      `SVC_UNLOAD_AFTER must be a duration like "15m", "90s" or 0, got "${env.SVC_UNLOAD_AFTER}"`,
    )
  return {
    // With auth on, forwarded identities are only safe when nobody but the proxy can reach svc.
    host: env.SVC_HOST || (authEnabled ? '127.0.0.1' : '0.0.0.0'),
    port,
    ollamaPort:
      env.SVC_OLLAMA_PORT === undefined || env.SVC_OLLAMA_PORT === ''
        ? undefined
        : envPort('SVC_OLLAMA_PORT', env.SVC_OLLAMA_PORT, 11434),
    paths: resolvePaths(env),
    authEnabled,
    trustedProxies: trusted.matcher,
    proxySecret: env.SVC_PROXY_SECRET || undefined,
    allowedHosts: hosts.hosts,
    logLevel,
    drainMs: drainS * 1000,
    queueTimeoutMs: queueS * 1000,
    upstreamTimeoutMs: upstreamS * 1000,
    unloadGraceMs: graceS * 1000,
    corsOrigins: parseCorsOrigins(env.SVC_CORS_ORIGINS),
    memory: {
      reserveGb: parseDeviceGb('SVC_MEMORY_RESERVE_GB', env.SVC_MEMORY_RESERVE_GB),
      budgetGb: parseDeviceGb('SVC_MEMORY_BUDGET_GB', env.SVC_MEMORY_BUDGET_GB),
    },
    maxConnections: envCount('SVC_MAX_CONNECTIONS', env.SVC_MAX_CONNECTIONS, DEFAULT_MAX_CONNECTIONS),
    maxStreams: envCount('SVC_MAX_STREAMS', env.SVC_MAX_STREAMS, DEFAULT_MAX_STREAMS),
    demand: { loadOnRequest: envFlag('SVC_LOAD_ON_REQUEST', env.SVC_LOAD_ON_REQUEST, false), unloadAfterMs },
    usage: readUsageEnv(env),
  }
}

function seconds(name: string, value: string | undefined, fallback: number): number {
  if (value === undefined || value === '') return fallback
  const n = Number(value)
  if (!Number.isFinite(n) || n < 0)
    throw new Error(`${name} must be a number of seconds >= 0, got "${value}"`)
  return n
}
