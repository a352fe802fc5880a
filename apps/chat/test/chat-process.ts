/** Starts the real chat server (`bin/svc-chat.js`) as a child process, for tests. */
import { type ChildProcess, spawn } from 'node:child_process'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'

export const CHAT_APP_DIR = fileURLToPath(new URL('..', import.meta.url))
const ENTRY = join(CHAT_APP_DIR, 'bin/svc-chat.js')

export interface ChatProcess extends AsyncDisposable {
  url: string
  port: number
  pid: number
  child: ChildProcess
  stateDir: string
  output(): string
  /** Sends `signal` (default SIGTERM) and waits for the exit; resolves with the exit code. */
  stop(signal?: NodeJS.Signals): Promise<number | null>
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
  const child = spawn(process.execPath, [ENTRY], {
    cwd: CHAT_APP_DIR,
    env: {
      ...process.env,
      SVC_CHAT_HOST: '127.0.0.1',
      SVC_CHAT_PORT: '0',
      SVC_STATE_DIR: stateDir,
      SVC_LOG_LEVEL: 'debug',
      ...options.env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let out = ''
  const collect = (d: Buffer) => {
    out += d.toString()
  }
  child.stdout?.on('data', collect)
  child.stderr?.on('data', collect)
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)))
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`chat server did not start:\n${out}`)),
      options.timeoutMs ?? 30_000,
    )
    const onData = () => {
      const m = /"msg":"svc chat listening","url":"(http:\/\/[^"]+)"/.exec(out)
      if (m?.[1]) {
        clearTimeout(timer)
        resolve(m[1])
      }
    }
    child.stdout?.on('data', onData)
    child.stderr?.on('data', onData)
    void exited.then((code) => {
      clearTimeout(timer)
      reject(new Error(`chat server exited with ${code} before listening:\n${out}`))
    })
  })
  let stopped: Promise<number | null> | undefined
  const stop = (signal: NodeJS.Signals = 'SIGTERM') => {
    stopped ??= (async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal)
      return exited
    })()
    return stopped
  }
  return {
    url,
    port: Number(new URL(url).port),
    pid: child.pid!,
    child,
    stateDir,
    output: () => out,
    stop,
    async [Symbol.asyncDispose]() {
      await stop()
      if (!options.stateDir) await rm(stateDir, { recursive: true, force: true })
    },
  }
}
