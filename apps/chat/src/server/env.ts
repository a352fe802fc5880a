import { type EdgeEnv, readEdgeEnv } from '@svc/auth'
import { envCount, envLogLevel, envPort, type LogLevel, resolvePaths } from '@svc/core/node'
import { type ChatVariable, chatFallback } from './env-variables'

/**
 * The environment the chat server reads, parsed once at startup (docs/chat.md#settings; every name is
 * declared in env-variables.ts, whose `SVC_CHAT_QUOTA_MB` default, 1 GiB, holds a few hundred photos).
 * The edge settings (`EdgeEnv`: trusted proxies, proxy secret, allowed hosts) are read as the API reads them.
 */
export interface ChatEnv extends EdgeEnv {
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
  // Only declared names: a variable read here and missing from the table (and the docs) cannot compile.
  const read = (name: ChatVariable): string | undefined => env[name]
  const rawHeader = read('SVC_CHAT_TRUSTED_HEADER')?.trim()
  if (rawHeader && !/^[A-Za-z0-9!#$%&'*+.^_`|~-]+$/.test(rawHeader)) {
    throw new Error(
      `SVC_CHAT_TRUSTED_HEADER must be a header name (e.g. X-Forwarded-Email), got "${rawHeader}"`,
    )
  }
  const trustedHeader = rawHeader ? rawHeader.toLowerCase() : undefined
  const edge = readEdgeEnv(read)
  const logLevel = envLogLevel(read('SVC_LOG_LEVEL') || chatFallback('SVC_LOG_LEVEL'))
  const apiUrl = (read('SVC_CHAT_API_URL') || chatFallback('SVC_CHAT_API_URL')).replace(/\/+$/, '')
  if (!URL.canParse(apiUrl) || !/^https?:$/.test(new URL(apiUrl).protocol)) {
    throw new Error(`SVC_CHAT_API_URL must be an http(s) URL, got "${read('SVC_CHAT_API_URL')}"`)
  }
  const number = (name: ChatVariable) => Number(chatFallback(name))
  return {
    host: read('SVC_CHAT_HOST') || chatFallback('SVC_CHAT_HOST'),
    port: envPort('SVC_CHAT_PORT', read('SVC_CHAT_PORT'), number('SVC_CHAT_PORT')),
    // SVC_STATE_DIR, or its default under XDG_DATA_HOME / HOME, as the API finds it.
    dataDir: `${resolvePaths(env).stateDir}/chat`,
    trustedHeader,
    ...edge,
    apiUrl,
    apiToken: read('SVC_CHAT_API_TOKEN')?.trim() || undefined,
    logLevel,
    quotaBytes:
      megabytes('SVC_CHAT_QUOTA_MB', read('SVC_CHAT_QUOTA_MB'), number('SVC_CHAT_QUOTA_MB')) * 1024 * 1024,
    staticDir: read('SVC_CHAT_STATIC_DIR') || undefined,
    maxConnections: envCount(
      'SVC_CHAT_MAX_CONNECTIONS',
      read('SVC_CHAT_MAX_CONNECTIONS'),
      number('SVC_CHAT_MAX_CONNECTIONS'),
    ),
  }
}

function megabytes(name: ChatVariable, value: string | undefined, fallback: number): number {
  if (value === undefined || value.trim() === '') return fallback
  const n = Number(value)
  if (!Number.isInteger(n) || n < 0)
    throw new Error(`${name} must be a whole number of MB >= 0, got "${value}"`)
  return n
}
