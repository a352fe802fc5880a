/**
 * Every environment variable the chat server reads, declared once: its name, its default and what it
 * means. `readChatEnv` (env.ts) reads only names declared here and takes plain defaults from
 * `fallback`; docs/chat.md's settings table is this table (test/env-docs.test.ts fails when they differ).
 */
import { declaredFallback, type EnvVariable } from '@svc/core/node'

export const CHAT_ENV_VARIABLES = [
  {
    name: 'SVC_CHAT_HOST',
    fallback: '127.0.0.1',
    meaning: 'address to listen on (`0.0.0.0`: the LAN; with auth off all are the one local user)',
  },
  { name: 'SVC_CHAT_PORT', fallback: '3001', meaning: 'port (`0` picks a free one)' },
  {
    name: 'SVC_CHAT_TRUSTED_HEADER',
    defaultText: '— (auth off)',
    meaning: "the proxy's identity header, e.g. `X-Forwarded-Email`",
  },
  {
    name: 'SVC_TRUSTED_PROXIES',
    defaultText: '`127.0.0.1,::1`',
    meaning: "who may send that header: IPs/CIDRs, `none` trusts none (as the API's)",
  },
  {
    name: 'SVC_PROXY_SECRET',
    meaning: "when set, that header also needs `X-Svc-Proxy-Secret` with this value (as the API's)",
  },
  {
    name: 'SVC_ALLOWED_HOSTS',
    meaning:
      "host names it answers to beyond loopback and this machine's own names and addresses, as the API's ([configuration.md](configuration.md#environment))",
  },
  { name: 'SVC_HOSTNAME', meaning: "the reverse proxy's public name: one more name it answers to" },
  {
    name: 'SVC_CHAT_API_URL',
    fallback: 'http://127.0.0.1:8080',
    defaultText: "`http://127.0.0.1:8080` (`pnpm start`: the API's `SVC_PORT`)",
    meaning: 'where the API is (http or https)',
  },
  {
    name: 'SVC_CHAT_API_TOKEN',
    meaning:
      'the bearer the chat server sends to the API; only with a trusted header, else every request is 401',
  },
  {
    name: 'SVC_CHAT_QUOTA_MB',
    fallback: '1024',
    meaning: 'what each person may store (uploads and generated images; `0`: no limit)',
  },
  {
    name: 'SVC_CHAT_MAX_CONNECTIONS',
    fallback: '512',
    meaning:
      "open connections served at once; the next are answered 503 `server.busy` (as the API's `SVC_MAX_CONNECTIONS`)",
  },
  {
    name: 'SVC_CHAT_STATIC_DIR',
    defaultText: '`apps/chat/dist`',
    meaning: 'the chat page build it serves',
  },
  {
    name: 'SVC_STATE_DIR',
    defaultText: "as the API's",
    meaning: 'the database is `<state>/chat/chat.db`, images `<state>/chat/files/`',
  },
  { name: 'SVC_LOG_LEVEL', fallback: 'info', meaning: '`debug`, `info`, `warn`, `error`' },
] as const satisfies readonly EnvVariable[]

/** The name of a variable the chat server reads. */
export type ChatVariable = (typeof CHAT_ENV_VARIABLES)[number]['name']

/** The variable's declared fallback (a plain value); throws when it declares none (a bug, not input). */
export function chatFallback(name: ChatVariable): string {
  return declaredFallback(CHAT_ENV_VARIABLES, name)
}
