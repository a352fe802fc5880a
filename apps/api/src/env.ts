import { envFlag, resolvePaths, type SvcPaths } from '@svc/core/node'

/** The environment svc reads, parsed once at startup (README "Configuration"). */
export interface ServeEnv {
  host: string
  port: number
  paths: SvcPaths
  authEnabled: boolean
  logLevel: 'debug' | 'info' | 'warn' | 'error'
  /** How long SIGTERM waits for in-flight requests before closing connections (ms). */
  drainMs: number
}

type Env = Record<string, string | undefined>

/** Parses the environment; throws an Error with a message fit for a person on bad values. */
export function readServeEnv(env: Env): ServeEnv {
  const authEnabled = envFlag('SVC_AUTH_ENABLED', env.SVC_AUTH_ENABLED, false)
  const port = parsePort(env.SVC_PORT)
  const logLevel = (env.SVC_LOG_LEVEL || 'info').toLowerCase()
  if (!['debug', 'info', 'warn', 'error'].includes(logLevel)) {
    throw new Error(`SVC_LOG_LEVEL must be debug, info, warn or error, got "${env.SVC_LOG_LEVEL}"`)
  }
  const drainS = Number(env.SVC_DRAIN_SECONDS ?? '10')
  if (!Number.isFinite(drainS) || drainS < 0) throw new Error(`SVC_DRAIN_SECONDS must be a number >= 0`)
  return {
    // With auth on, forwarded identities are only safe when nobody but the proxy can reach svc.
    host: env.SVC_HOST || (authEnabled ? '127.0.0.1' : '0.0.0.0'),
    port,
    paths: resolvePaths(env),
    authEnabled,
    logLevel: logLevel as ServeEnv['logLevel'],
    drainMs: drainS * 1000,
  }
}

function parsePort(value: string | undefined): number {
  if (value === undefined || value === '') return 8080
  const port = Number(value)
  if (!Number.isInteger(port) || port < 0 || port > 65535)
    throw new Error(`SVC_PORT must be a port number, got "${value}"`)
  return port
}
