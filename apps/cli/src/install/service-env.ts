import { parseDurationMs } from '@svc/core'
import { IDENTITY_HEADER } from './caddyfile'
import type { ManagedEnv } from './env-file'
import type { InstallArgs } from './install-args'
import { LAYOUT } from './layout'

/** What the installer decided, as the two services need it. */
export interface ServiceEnvInput {
  auth: 'basic' | 'off'
  ports: { api: number; chat: number; gate: number }
  /** The proxy's secret for the API (auth basic only). */
  proxySecret?: string
  /**
   * The proxy's secret for the chat app, another one: the chat app holds it, and with the API's it
   * could speak as any signed-in user (the admin) to the API.
   */
  chatProxySecret?: string
  /** The chat app's `v1-only` token (auth basic only). */
  chatToken?: string
  /** `SVC_LLAMA_SERVER` / `SVC_WHISPER_SERVER`: the engines the API runs (see engines.ts). */
  engines?: ManagedEnv
  /** `SVC_LOAD_ON_REQUEST` / `SVC_UNLOAD_AFTER`, as far as flags set them (see `selfManagingEnv`). */
  selfManaging?: ManagedEnv
}

export const API_ENV_HEADER = `# svc API (svc-api.service). \`svc install\` manages the SVC_* keys it wrote below and keeps
# every other line: add your own settings (e.g. OPENAI_API_KEY=… for upstreams.toml) here.
# Mode 0640 root:svc: it may hold the proxy secret.
`

export const CHAT_ENV_HEADER = `# svc chat app (svc-chat.service). \`svc install\` manages the SVC_* keys it wrote below and
# keeps every other line. Mode 0640 root:svc-chat: it holds the chat app's API token and its own
# proxy secret (not the API's).
`

/**
 * The keys of `api.env` the installer owns. With auth on the API listens on loopback only (the proxy
 * is its front door) and trusts a forwarded identity only with the proxy secret; with auth off it
 * listens everywhere (svc's default) and the secret is gone.
 */
export function apiEnv(input: ServiceEnvInput): ManagedEnv {
  const on = input.auth === 'basic'
  return {
    SVC_CONFIG_DIR: LAYOUT.configDir,
    SVC_STATE_DIR: LAYOUT.stateDir,
    SVC_CACHE_DIR: LAYOUT.cacheDir,
    SVC_PORT: String(input.ports.api),
    SVC_HOST: on ? '127.0.0.1' : undefined,
    SVC_AUTH_ENABLED: on ? '1' : '0',
    SVC_PROXY_SECRET: on ? required(input.proxySecret, 'proxy secret') : undefined,
    // read by svc-auth.service (svc auth-gate), which shares this file: it is the svc user's too
    SVC_AUTH_GATE_PORT: on ? String(input.ports.gate) : undefined,
    SVC_AUTH_GATE_USERS: on ? LAYOUT.gateUsers : undefined,
    ...input.engines,
    ...input.selfManaging,
  }
}

/**
 * The defaults for slots that manage themselves (docs/self-managing-slots.md), from `--load-on-request`
 * / `--no-load-on-request` and `--unload-after`. A key is managed only when its flag is given: a run
 * without them leaves the line as it is (set by an earlier run or by hand), as `--containers` is
 * remembered. Off is written as no line, since absent means off (`--no-load-on-request`) and never
 * (`--unload-after 0`) to the API: api.env then shows only what was turned on.
 */
export function selfManagingEnv(args: Pick<InstallArgs, 'loadOnRequest' | 'unloadAfter'>): ManagedEnv {
  const env: ManagedEnv = {}
  if (args.loadOnRequest !== undefined) env.SVC_LOAD_ON_REQUEST = args.loadOnRequest ? '1' : undefined
  if (args.unloadAfter !== undefined)
    env.SVC_UNLOAD_AFTER = parseDurationMs(args.unloadAfter) ? args.unloadAfter : undefined
  return env
}

/**
 * The keys of `chat.env` (the chat app's environment contract): its own state dir; with auth on it
 * listens on loopback, believes `X-Forwarded-Email` only with its own proxy secret, and calls the
 * API with its own `v1-only` token; with auth off it is one local user on every address.
 */
export function chatEnv(input: ServiceEnvInput): ManagedEnv {
  const on = input.auth === 'basic'
  return {
    SVC_STATE_DIR: LAYOUT.chatStateDir,
    SVC_CHAT_PORT: String(input.ports.chat),
    // The chat server listens on loopback unless told otherwise; an auth-off install tells it to serve
    // the LAN, as the API does with auth off (one local user, the LAN trusted: docs/configuration.md).
    SVC_CHAT_HOST: on ? '127.0.0.1' : '0.0.0.0',
    SVC_CHAT_API_URL: `http://127.0.0.1:${input.ports.api}`,
    SVC_CHAT_TRUSTED_HEADER: on ? IDENTITY_HEADER : undefined,
    SVC_PROXY_SECRET: on ? required(input.chatProxySecret, 'chat proxy secret') : undefined,
    SVC_CHAT_API_TOKEN: on ? required(input.chatToken, 'chat token') : undefined,
  }
}

function required(value: string | undefined, what: string): string {
  if (!value) throw new Error(`internal: no ${what} for auth basic`)
  return value
}
