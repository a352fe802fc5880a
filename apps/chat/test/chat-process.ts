/** Starts the real chat server (`bin/svc-chat.js`) as a child process, for tests. */
import { mkdtemp, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { LISTENING, type ServerProcess, startServerProcess } from '@svc/testing'

export const CHAT_APP_DIR = fileURLToPath(new URL('..', import.meta.url))
const ENTRY = join(CHAT_APP_DIR, 'bin/svc-chat.js')

/** The chat server's process; dispose stops it and removes the state dir it made. */
export interface ChatProcess extends ServerProcess {
  stateDir: string
}

export interface StartChatOptions {
  env?: Record<string, string>
  /** Reuse a state dir (restart over the same database). A temp dir otherwise, removed on dispose. */
  stateDir?: string
  timeoutMs?: number
}

/**
 * Starts the chat server on 127.0.0.1 and a free port with its own state dir, waits for its
 * "svc chat listening" line and returns its URL. `SVC_CHAT_API_URL` should point at a test API.
 */
export async function startChatProcess(options: StartChatOptions = {}): Promise<ChatProcess> {
  const stateDir = options.stateDir ?? (await mkdtemp(join(tmpdir(), 'svc-chat-state-')))
  const chat = await startServerProcess({
    command: process.execPath,
    args: [ENTRY],
    spawn: {
      cwd: CHAT_APP_DIR,
      env: {
        ...process.env,
        SVC_CHAT_HOST: '127.0.0.1',
        SVC_CHAT_PORT: '0',
        SVC_STATE_DIR: stateDir,
        SVC_LOG_LEVEL: 'debug',
        ...options.env,
      },
    },
    ready: LISTENING.chat,
    what: 'chat server',
    timeoutMs: options.timeoutMs ?? 30_000,
    cleanup: async () => {
      if (!options.stateDir) await rm(stateDir, { recursive: true, force: true })
    },
  })
  return Object.assign(chat, { stateDir })
}

/**
 * The local addresses a TCP socket listens on at `port`, from the kernel's own tables
 * (`/proc/net/tcp`, `/proc/net/tcp6`): `127.0.0.1`, `0.0.0.0`, `::`, `::1`, … (what the server
 * really bound, not what it logged).
 */
export async function listeningAddresses(port: number): Promise<string[]> {
  const found: string[] = []
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    const text = await readFile(table, 'utf8').catch(() => '')
    for (const line of text.split('\n').slice(1)) {
      const [, local, , state] = line.trim().split(/\s+/)
      if (state !== '0A' || !local) continue // 0A: LISTEN
      const [hex, portHex] = local.split(':')
      if (Number.parseInt(portHex ?? '', 16) !== port || !hex) continue
      found.push(hex.length === 8 ? ipv4(hex) : ipv6(hex))
    }
  }
  return found
}

/** `/proc/net/tcp` writes an IPv4 address as one little-endian 32-bit hex word. */
function ipv4(hex: string): string {
  return [6, 4, 2, 0].map((i) => Number.parseInt(hex.slice(i, i + 2), 16)).join('.')
}

/** Four little-endian 32-bit words; only the addresses a test meets are named. */
function ipv6(hex: string): string {
  if (/^0{32}$/.test(hex)) return '::'
  if (hex === '00000000000000000000000001000000') return '::1'
  return hex
}
