/**
 * `svc start` (what `pnpm start` runs): both servers in the background, in a session of their own
 * (closing the terminal does not stop them), each logging to `<state>/service/<app>.log`. Returns
 * once both listen, printing the addresses to open (banner.ts) and how long they took; a server that exits first fails the
 * start, shows its last log lines and stops the other. Nothing of the launcher stays resident.
 */
import { spawn } from 'node:child_process'
import { closeSync, existsSync, mkdirSync, openSync, readFileSync, renameSync } from 'node:fs'
import type { CliContext } from '../context'
import { CliError } from '../context'
import { bannerLines } from './banner'
import { type Listening, listeningIn, type ServerSpec, serverEnv, serversFor } from './servers'
import { isRunning, type StartedServer, serviceFiles } from './service-files'

const LISTEN_TIMEOUT_MS = 60_000

export async function startInBackground(ctx: CliContext): Promise<number> {
  const files = serviceFiles(ctx.env)
  const running = files.read().filter(isRunning)
  if (running.length > 0) {
    ctx.stdout.write(`svc is already running:\n${bannerLines(running)}Stop it with: pnpm stop (svc stop)\n`)
    return 0
  }
  mkdirSync(files.dir, { recursive: true })
  const env = serverEnv(ctx.env)
  const started: (StartedServer & { seconds: number })[] = []
  const launches = serversFor(ctx.env).map((spec) => launch(spec, files.log(spec.app), env))
  try {
    for (const l of launches) {
      started.push({ ...(await l.listening), app: l.spec.app, argv: l.spec.argv, log: l.log, pid: l.pid })
    }
  } catch (error) {
    for (const l of launches) l.kill()
    throw error
  }
  await files.write(started.map(({ seconds: _, ...s }) => s))
  ctx.stdout.write(
    `svc is running:\n${bannerLines(started)}Logs: ${files.dir}/*.log\nStop it with: pnpm stop (svc stop)\n`,
  )
  return 0
}

interface Launch {
  spec: ServerSpec
  pid: number
  log: string
  listening: Promise<Listening & { seconds: number }>
  kill(): void
}

function launch(spec: ServerSpec, log: string, env: Record<string, string | undefined>): Launch {
  if (existsSync(log)) renameSync(log, `${log}.1`)
  const fd = openSync(log, 'a', 0o640)
  const began = performance.now()
  const child = spawn(process.execPath, spec.argv, {
    detached: true,
    stdio: ['ignore', fd, fd],
    env: env as NodeJS.ProcessEnv,
  })
  closeSync(fd)
  const listening = new Promise<Listening & { seconds: number }>((resolve, reject) => {
    const fail = (why: string) => {
      clearInterval(poll)
      const tail = readTail(log)
      reject(new CliError(`${spec.label} ${why}${tail ? `; its last log lines (${log}):\n${tail}` : ''}`))
    }
    const timer = setTimeout(
      () => fail(`did not listen within ${LISTEN_TIMEOUT_MS / 1000} s`),
      LISTEN_TIMEOUT_MS,
    )
    const poll = setInterval(() => {
      const found = listeningIn(spec, readTail(log, 64 * 1024))
      if (!found) return
      clearInterval(poll)
      clearTimeout(timer)
      child.off('exit', onExit)
      child.unref()
      resolve({ ...found, seconds: (performance.now() - began) / 1000 })
    }, 20)
    const onExit = (code: number | null, signal: NodeJS.Signals | null) => {
      clearTimeout(timer)
      fail(`exited (${signal ?? code}) before it listened`)
    }
    child.once('exit', onExit)
    child.once('error', (error) => {
      clearTimeout(timer)
      fail(`could not start: ${error.message}`)
    })
  })
  // Awaited in order; one that fails while an earlier one is awaited must not go unhandled.
  listening.catch(() => undefined)
  return {
    spec,
    pid: child.pid ?? -1,
    log,
    listening,
    kill: () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM')
    },
  }
}

function readTail(file: string, bytes = 4096): string {
  try {
    const text = readFileSync(file, 'utf8')
    return text.length > bytes ? text.slice(-bytes) : text
  } catch {
    return ''
  }
}
