import type { HostRule, ProxyTrust } from '@svc/auth'
import type { Logger } from '@svc/core/node'
import type { Generations } from './chat/generations'
import type { ChatStore } from './store/chat-store'
import type { FileBytes } from './store/file-bytes'
import type { SvcApi } from './upstream/svc-api'

/** Everything the chat app needs, built by server.ts (the app itself reads no env, opens no socket). */
export interface ChatDeps {
  store: ChatStore
  files: FileBytes
  api: SvcApi
  generations: Generations
  /** Lower-case trusted identity header (auth on), or undefined (one local user). */
  trustedHeader: string | undefined
  fromProxy: ProxyTrust
  /** Host names the server answers to (`SVC_ALLOWED_HOSTS`, …); default: loopback and this machine's. */
  hosts?: HostRule
  /** The proxy vouches for its own site name (given only when a proxy secret is set). */
  proxyVouches?: ProxyTrust
  /** The Vite build (`index.html`, `assets/`); undefined or missing → a page that says to build it. */
  staticDir: string | undefined
  logger: Logger
  version: string
  /** How often a streaming answer is saved (ms). Default 250. */
  saveEveryMs?: number
}
