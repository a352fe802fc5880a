import { type AddressMatcher, type AllowedHosts, allowedHostsFrom, parseAddressList } from '@svc/auth'
import { envCount, envLogLevel, envPort, type LogLevel, resolvePaths } from '@svc/core/node'

/** The environment the chat server reads, parsed once at startup (docs/chat.md#settings). */
export interface ChatEnv {
  /**
   * `SVC_CHAT_HOST`; default 127.0.0.1 whatever the auth mode. Behind the proxy nothing else should
   * reach it; with auth off everyone who reaches it is the one local user, so serving the LAN
   * (`0.0.0.0`) is the operator's explicit choice.
   */
  host: string
  port: number
  /** `<state>/chat`: the database and the stored images live here. */
  dataDir: string
  /**
   * `SVC_CHAT_TRUSTED_HEADER` in lower case (e.g. `x-forwarded-email`), or undefined: then nobody signs
   * in and everyone is the one local user.
   */
  trustedHeader: string | undefined
  trustedProxies: AddressMatcher
  proxySecret: string | undefined
  /** `SVC_ALLOWED_HOSTS` and `SVC_HOSTNAME`: host names served beyond loopback and the machine's own. */
  allowedHosts: AllowedHosts
  /** `SVC_CHAT_API_URL` without a trailing slash. */
  apiUrl: string
  /** `SVC_CHAT_API_TOKEN`: the bearer the server sends to the API; never reaches a browser. */
  apiToken: string | undefined
  logLevel: LogLevel
  /** `SVC_CHAT_QUOTA_MB` in bytes: what one person may store (uploads and generated images); 0 = no limit. */
  quotaBytes: number
  /** `SVC_CHAT_STATIC_DIR`: the front-end build to serve; default `apps/chat/dist`. */
  staticDir: string | undefined
  /** `SVC_CHAT_MAX_CONNECTIONS`: open connections served at once (503 `server.busy` past it). Default 512. */
  maxConnections: number
}

type Env = Record<string, string | undefined>

/** Parses the environment; throws an Error whose message is fit for a person on a bad value. */
export function readChatEnv(env: Env): ChatEnv {
  const rawHeader = env.SVC_CHAT_TRUSTED_HEADER?.trim()
  if (rawHeader && !/^[A-Za-z0-9!#$%&'*+.^_`|~-]+$/.test(rawHeader)) {
    throw new Error(
      `SVC_CHAT_TRUSTED_HEADER must be a header name (e.g. X-Forwarded-Email), got "${rawHeader}"`,
    )
  }
  const trustedHeader = rawHeader ? rawHeader.toLowerCase() : undefined
  const trusted = parseAddressList(env.SVC_TRUSTED_PROXIES)
  if (!trusted.ok) throw new Error(trusted.error)
  const hosts = allowedHostsFrom({ allowedHosts: env.SVC_ALLOWED_HOSTS, hostname: env.SVC_HOSTNAME })
  if (!hosts.ok) throw new Error(hosts.error)
  const logLevel = envLogLevel(env.SVC_LOG_LEVEL)
  const apiUrl = (env.SVC_CHAT_API_URL || 'http://127.0.0.1:8080').replace(/\/+$/, '')
  if (!URL.canParse(apiUrl) || !/^https?:$/.test(new URL(apiUrl).protocol)) {
    throw new Error(`SVC_CHAT_API_URL must be an http(s) URL, got "${env.SVC_CHAT_API_URL}"`)
  }
  return {
    host: env.SVC_CHAT_HOST || '127.0.0.1',
    port: envPort('SVC_CHAT_PORT', env.SVC_CHAT_PORT, 3001),
    dataDir: `${resolvePaths(env).stateDir}/chat`,
    trustedHeader,
    trustedProxies: trusted.matcher,
    proxySecret: env.SVC_PROXY_SECRET || undefined,
    allowedHosts: hosts.hosts,
    apiUrl,
    apiToken: env.SVC_CHAT_API_TOKEN?.trim() || undefined,
    logLevel,
    quotaBytes: megabytes('SVC_CHAT_QUOTA_MB', env.SVC_CHAT_QUOTA_MB, DEFAULT_QUOTA_MB) * 1024 * 1024,
    staticDir: env.SVC_CHAT_STATIC_DIR || undefined,
    maxConnections: envCount('SVC_CHAT_MAX_CONNECTIONS', env.SVC_CHAT_MAX_CONNECTIONS, 512),
  }
}

/** Each person's storage for uploads and generated images: 1 GiB, a few hundred photos. */
const DEFAULT_QUOTA_MB = 1024

function megabytes(name: string, value: string | undefined, fallback: number): number {
  if (value === undefined || value.trim() === '') return fallback
  const n = Number(value)
  if (!Number.isInteger(n) || n < 0)
    throw new Error(`${name} must be a whole number of MB >= 0, got "${value}"`)
  return n
}
