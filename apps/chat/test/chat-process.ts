/** Starts the real chat server (`bin/svc-chat.js`) as a child process, for tests. */
import { mkdtemp, rm } from 'node:fs/promises'
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
