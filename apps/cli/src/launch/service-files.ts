/**
 * Where `svc start` keeps what it started: `<state>/service/` holds `api.log` and `chat.log` (the
 * servers' JSON log lines; the previous run's as `.log.1`) and `pids.json`, the processes to stop.
 */
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { resolvePaths, writeFileAtomic } from '@svc/core/node'
import type { ServerApp } from '../server-entries'

export interface StartedServer {
  app: ServerApp
  pid: number
  /** node's arguments it was started with: how `svc stop` knows the pid is still that server. */
  argv: string[]
  /** The URL its "listening" log line gives (the chat app's names 127.0.0.1 for a wildcard bind). */
  url: string
  /** The address it bound, `http://<host>:<port>`, when its log line says (what the banner reads). */
  bound?: string
  /** The chat app with auth off: whoever reaches it is the one local user. */
  oneLocalUser?: boolean
  log: string
}

export interface ServiceFiles {
  dir: string
  log(app: ServerApp): string
  read(): StartedServer[]
  write(servers: StartedServer[]): Promise<void>
}

export function serviceFiles(env: Record<string, string | undefined>): ServiceFiles {
  const dir = join(resolvePaths(env).stateDir, 'service')
  const pids = join(dir, 'pids.json')
  return {
    dir,
    log: (app) => join(dir, `${app}.log`),
    read() {
      try {
        const parsed = JSON.parse(readFileSync(pids, 'utf8')) as { servers?: StartedServer[] }
        return Array.isArray(parsed.servers) ? parsed.servers : []
      } catch {
        return []
      }
    },
    write: (servers) => writeFileAtomic(pids, `${JSON.stringify({ servers }, null, 2)}\n`),
  }
}

/**
 * Whether `server.pid` is still the process `svc start` made: alive, and its command line is node
 * with the same arguments (a pid reused by another program is never signalled).
 */
export function isRunning(server: StartedServer): boolean {
  let cmdline: string
  try {
    cmdline = readFileSync(`/proc/${server.pid}/cmdline`, 'utf8')
  } catch {
    return false
  }
  const args = cmdline.split('\0').filter(Boolean)
  return (
    args.length > server.argv.length &&
    server.argv.every((a, i) => args[args.length - server.argv.length + i] === a)
  )
}
