import { type AddressMatcher, parseAddressList } from '@svc/auth'
import { envCount, envLogLevel, envPort, type LogLevel, resolvePaths } from '@svc/core/node'

/** The environment the chat server reads, parsed once at startup (README "Chat"). */
export interface ChatEnv {
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
  /** `SVC_CHAT_API_URL` without a trailing slash. */
  apiUrl: string
  /** `SVC_CHAT_API_TOKEN`: the bearer the server sends to the API; never reaches a browser. */
  apiToken: string | undefined
  logLevel: LogLevel
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
  const logLevel = envLogLevel(env.SVC_LOG_LEVEL)
  const apiUrl = (env.SVC_CHAT_API_URL || 'http://127.0.0.1:8080').replace(/\/+$/, '')
  if (!URL.canParse(apiUrl) || !/^https?:$/.test(new URL(apiUrl).protocol)) {
    throw new Error(`SVC_CHAT_API_URL must be an http(s) URL, got "${env.SVC_CHAT_API_URL}"`)
  }
  return {
    // A trusted header is only safe when nobody but the proxy can reach the chat server.
    host: env.SVC_CHAT_HOST || (trustedHeader ? '127.0.0.1' : '0.0.0.0'),
    port: envPort('SVC_CHAT_PORT', env.SVC_CHAT_PORT, 3001),
    dataDir: `${resolvePaths(env).stateDir}/chat`,
    trustedHeader,
    trustedProxies: trusted.matcher,
    proxySecret: env.SVC_PROXY_SECRET || undefined,
    apiUrl,
    apiToken: env.SVC_CHAT_API_TOKEN?.trim() || undefined,
    logLevel,
    staticDir: env.SVC_CHAT_STATIC_DIR || undefined,
    maxConnections: envCount('SVC_CHAT_MAX_CONNECTIONS', env.SVC_CHAT_MAX_CONNECTIONS, 512),
  }
}
