/**
 * The `process` runtime: the upstream is a host program, spawned in its own process group with its
 * output in `<state>/logs/<slot>.log` and a pid file in `<state>/run/<slot>.json`. Stop = SIGTERM to
 * the group, SIGKILL after the grace period. On API start, `recover` adopts a healthy leftover (the
 * pid file names it and /proc confirms it is the same program) or kills it: never an orphan.
 */
import { spawn } from 'node:child_process'
import { closeSync } from 'node:fs'
import { basename, join } from 'node:path'
import type { UpstreamExit, UpstreamHandle } from '@svc/core'
import type { SlotContext } from '../contract'
import { freePort } from './free-port'
import { LogFile } from './log-file'
import { isSameProcess, type PidRecord, readPidFile, removePidFile, writePidFile } from './pid-file'
import { resolveProgram } from './program'
import type { Runtime, RuntimeStartRequest } from './runtime'

export interface ProcessRuntimeOptions {
  stateDir: string
  /** Env used to find programs and passed to upstreams (plus the provider's env). Default process.env. */
  env?: Record<string, string | undefined>
  /** How often an adopted (not our child) upstream is checked for life (ms). Default 500. */
  adoptedPollMs?: number
}

export function createProcessRuntime(options: ProcessRuntimeOptions): Runtime {
  const env = options.env ?? process.env
  const logPath = (slot: string) => join(options.stateDir, 'logs', `${slot}.log`)

  return {
    kind: 'process',
    async start(req: RuntimeStartRequest): Promise<UpstreamHandle> {
      const host = '127.0.0.1'
      const port = await freePort(host)
      const ctx: SlotContext = {
        slot: req.slot,
        model: req.model,
        modelPath: req.model.path ?? req.model.id,
        backend: req.backend,
        runtime: 'process',
        host,
        port,
        args: req.args,
        ...(req.role ? { role: req.role } : {}),
        ...(req.ctxSize !== undefined ? { ctxSize: req.ctxSize } : {}),
      }
      const [program, ...rest] = req.provider.startCommand(ctx)
      if (!program) throw new Error(`provider ${req.provider.kind} returned an empty start command`)
      const path = resolveProgram(program, env)
      req.signal.throwIfAborted()
      const { log, fd } = await LogFile.create(logPath(req.slot))
      const child = spawn(path, rest, {
        env: { ...env, ...req.provider.buildEnv(ctx) } as NodeJS.ProcessEnv,
        detached: true, // own process group: stop signals reach whatever the upstream forks
        stdio: ['ignore', fd, fd],
      })
      closeSync(fd)
      const spawned = await new Promise<Error | null>((resolve) => {
        child.once('spawn', () => resolve(null))
        child.once('error', (error) => resolve(error))
      })
      if (spawned || child.pid === undefined)
        throw new Error(`cannot start ${path}: ${spawned?.message ?? 'no pid'}`)
      const pid = child.pid
      child.unref()
      log.follow()
      const record: PidRecord = {
        pid,
        slot: req.slot,
        model: req.model.id,
        port,
        host,
        argv: [path, ...rest],
        logFile: log.path,
        startedAt: new Date().toISOString(),
      }
      await writePidFile(options.stateDir, record)
      const exited = new Promise<UpstreamExit>((resolve) => {
        child.once('exit', (code, signal) => {
          log.stop()
          void removePidFile(options.stateDir, req.slot, pid)
          resolve(describeExit(basename(path), code, signal, log.ring.last()))
        })
      })
      return processHandle(record, exited, log)
    },

    async recover(slot, isHealthy) {
      const record = await readPidFile(options.stateDir, slot)
      if (!record) return undefined
      if (!isSameProcess(record)) {
        await removePidFile(options.stateDir, slot, record.pid) // gone, or the pid now belongs to someone else
        return undefined
      }
      const log = LogFile.attach(record.logFile)
      log.follow()
      const exited = pollExit(record, options.adoptedPollMs ?? 500, log, options.stateDir)
      const handle = processHandle(record, exited, log)
      if (await isHealthy(handle)) return { modelId: record.model, handle }
      await handle.stop(5_000)
      return undefined
    },
  }
}

function processHandle(record: PidRecord, exited: Promise<UpstreamExit>, log: LogFile): UpstreamHandle {
  let stopping: Promise<void> | undefined
  let gone = false
  void exited.then(() => {
    gone = true
  })
  return {
    base: new URL(`http://${record.host}:${record.port}`),
    exited,
    describe: () => ({ pid: record.pid, log: record.logFile }),
    logs: () => log.ring.snapshot(),
    stop(graceMs: number) {
      stopping ??= (async () => {
        if (gone) return
        signalGroup(record.pid, 'SIGTERM')
        const timer = setTimeout(() => signalGroup(record.pid, 'SIGKILL'), graceMs)
        await exited
        clearTimeout(timer)
      })()
      return stopping
    },
  }
}

/** For an adopted upstream (not our child): polls for its death. */
function pollExit(record: PidRecord, everyMs: number, log: LogFile, stateDir: string): Promise<UpstreamExit> {
  return new Promise((resolve) => {
    const timer = setInterval(() => {
      if (isSameProcess(record)) return
      clearInterval(timer)
      log.stop()
      void removePidFile(stateDir, record.slot, record.pid)
      resolve({
        code: null,
        signal: null,
        reason: `${basename(record.argv[0] ?? 'upstream')} (adopted, pid ${record.pid}) exited`,
      })
    }, everyMs)
    timer.unref()
  })
}

function signalGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pid, signal)
  } catch {
    try {
      process.kill(pid, signal)
    } catch {
      // already gone
    }
  }
}

function describeExit(
  name: string,
  code: number | null,
  signal: NodeJS.Signals | null,
  lastLine: string | undefined,
): UpstreamExit {
  const how = signal ? `was killed by ${signal}` : `exited with code ${code}`
  return { code, signal, reason: lastLine ? `${name} ${how} (last log line: ${lastLine})` : `${name} ${how}` }
}
