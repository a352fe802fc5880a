/**
 * The `process` runtime: the upstream is a host program, spawned in its own process group with its
 * output in `<state>/logs/<slot>.log` and a pid file in `<state>/run/<slot>.json`. Stop = SIGTERM to
 * the group, SIGKILL after the grace period. On API start, `recover` adopts a healthy leftover (the
 * pid file names it and /proc confirms it is the same process: same start time in the same boot, so
 * an upstream behind a wrapper script is recognised too) or kills it: never an orphan.
 */
import { closeSync } from 'node:fs'
import { basename, join } from 'node:path'
import type { UpstreamExit, UpstreamHandle } from '@svc/core'
import type { SlotContext } from '../contract'
import { freePort } from './free-port'
import { ShellLauncher } from './launcher'
import { LogFile } from './log-file'
import {
  isSameProcess,
  type PidRecord,
  processIdentity,
  readPidFile,
  removePidFile,
  writePidFile,
} from './pid-file'
import { portOpenOrExit } from './port-open'
import { processMemoryUse } from './process-memory'
import { resolveProgram } from './program'
import type { Runtime, RuntimeStartRequest } from './runtime'
import { upstreamEnv } from './upstream-env'
import { keyEnvName, newUpstreamKey } from './upstream-key'

export interface ProcessRuntimeOptions {
  stateDir: string
  /**
   * Env used to find programs; upstreams get only the part of it they need (`upstream-env.ts`) plus
   * the provider's env. The server's environment, read once where it starts.
   */
  env: Record<string, string | undefined>
  /** How often an adopted (not our child) upstream is checked for life (ms). Default 500. */
  adoptedPollMs?: number
  /** Picks the port for the next launch. Default: a free port on 127.0.0.1. */
  pickPort?: () => Promise<number>
  /**
   * Pids of other svc processes on this state dir (`registerLiveRun`): while any runs, `recover`
   * neither adopts nor kills what a pid file names, since it may be that svc's upstream.
   */
  othersLive?: () => Promise<readonly number[]>
}

const BIND_ERROR = /address already in use|EADDRINUSE|couldn't bind|could not bind|failed to bind/i

export function createProcessRuntime(options: ProcessRuntimeOptions): Runtime {
  const env = options.env
  const launcher = new ShellLauncher(upstreamEnv(env, {}))
  const logPath = (slot: string) => join(options.stateDir, 'logs', `${slot}.log`)

  /**
   * Spawns the upstream. Resolves with its handle, the line that says it has bound its port (when
   * the provider names one) and its pid file's write, which runs while the upstream starts.
   */
  async function launch(req: RuntimeStartRequest, port: number): Promise<Launched> {
    const host = '127.0.0.1'
    const key = req.apiKey ?? newUpstreamKey()
    const ctx: SlotContext = {
      slot: req.slot,
      model: req.model,
      modelPath: req.model.path ?? req.model.id,
      ...(req.model.mmproj?.path ? { mmprojPath: req.model.mmproj.path } : {}),
      backend: req.backend,
      runtime: 'process',
      host,
      port,
      args: req.args,
      ...(req.role ? { role: req.role } : {}),
      ...(req.ctxSize !== undefined ? { ctxSize: req.ctxSize } : {}),
      apiKey: key,
    }
    const providerEnv = req.provider.buildEnv(ctx)
    const [program, ...rest] = req.provider.startCommand(ctx)
    if (!program) throw new Error(`provider ${req.provider.kind} returned an empty start command`)
    const path = resolveProgram(program, env)
    req.signal.throwIfAborted()
    const { log, fd } = await LogFile.create(logPath(req.slot))
    closeSync(fd) // the launch appends to it by its path
    // Through a shell started ahead of need (launcher.ts): its own process group, so stop signals
    // reach whatever the upstream forks; no fork of the API on the way.
    const child = await launcher
      .launch({
        path,
        args: rest,
        env: upstreamEnv(env, req.env ? { ...providerEnv, ...req.env } : providerEnv),
        logPath: log.path,
      })
      .catch((error: Error) => {
        throw new Error(`cannot start ${path}: ${error.message}`)
      })
    if (child.pid === undefined) throw new Error(`cannot start ${path}: no pid`)
    const pid = child.pid
    child.unref()
    // Asked before the first read of the log, so no line is read before someone waits for it.
    const lines = req.provider.logLines
    const listening = lines?.listening ? log.sees(lines.listening) : undefined
    const saysReady = lines?.ready ? log.sees(lines.ready) : undefined
    log.follow()
    // An engine build that never prints those lines is not watched for its whole life: past the warm-up
    // deadline the waits end (start and warming have their own fallbacks by then).
    const lookout = setTimeout(() => log.stopWaiting(), req.provider.warmupTimeoutMs ?? 120_000)
    lookout.unref()
    const record: PidRecord = {
      pid,
      slot: req.slot,
      model: req.model.id,
      port,
      host,
      argv: [path, ...rest],
      logFile: log.path,
      startedAt: new Date().toISOString(),
      // Read right after spawn: the identity is the process's, whatever it execs into later.
      ...processIdentity(pid),
      ...(keyEnvName(providerEnv, key) ? { apiKey: key } : {}),
    }
    // Written while the upstream starts, not before: start() waits for it before it returns.
    const written = writePidFile(options.stateDir, record)
    written.catch(() => undefined) // start() reports it
    const exited = new Promise<UpstreamExit>((resolve) => {
      child.once('exit', (code, signal) => {
        clearTimeout(lookout)
        log.stop()
        // After its write, which may still run: a quick exit leaves no record of a dead process.
        void written.then(
          () => removePidFile(options.stateDir, req.slot, pid),
          () => undefined,
        )
        resolve(describeExit(basename(path), code, signal, log.ring.last()))
      })
    })
    return { handle: processHandle(record, exited, log, saysReady), listening, written }
  }

  return {
    kind: 'process',
    async start(req: RuntimeStartRequest): Promise<UpstreamHandle> {
      // The free port is probed, then released, then bound by the upstream: another process may take
      // it in between. An upstream that dies of a bind error is started again on a new port.
      for (let attempt = 1; ; attempt++) {
        const port = await (options.pickPort ?? (() => freePort('127.0.0.1')))()
        const { handle, listening, written } = await launch(req, port)
        const deadlineMs = req.provider.warmupTimeoutMs ?? 120_000
        const opening = portOpenOrExit(handle, req.signal, deadlineMs, listening)
        const [outcome] = await Promise.all([opening, written]).catch(async (error: unknown) => {
          await handle.stop(2_000) // no pid file: it could not be found again after a restart
          throw error
        })
        if (outcome === 'aborted') {
          await handle.stop(2_000)
          req.signal.throwIfAborted()
        }
        if (outcome !== 'exited' || attempt >= 3 || !BIND_ERROR.test(handle.logs().slice(-20).join('\n')))
          return handle
      }
    },

    async recover(slot, isHealthy) {
      if ((await options.othersLive?.())?.length) return undefined
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

/** A launched upstream: its handle, the log line of its own port (if the provider names one), its pid file's write. */
interface Launched {
  handle: UpstreamHandle
  listening: Promise<void> | undefined
  written: Promise<void>
}

function processHandle(
  record: PidRecord,
  exited: Promise<UpstreamExit>,
  log: LogFile,
  saysReady?: Promise<void>,
): UpstreamHandle {
  let stopping: Promise<void> | undefined
  let gone = false
  void exited.then(() => {
    gone = true
  })
  return {
    base: new URL(`http://${record.host}:${record.port}`),
    ...(record.apiKey ? { apiKey: record.apiKey } : {}),
    exited,
    ...(saysReady ? { saysReady } : {}),
    describe: () => ({ pid: record.pid, log: record.logFile }),
    // Read up to now first: the tailer polls every 250 ms, and a slot can be ready sooner than that,
    // so a caller asking right after `ready` would otherwise see none of the start-up lines.
    logs: () => {
      log.poll()
      return log.ring.snapshot()
    },
    memoryUse: async () => (gone ? undefined : processMemoryUse(record.pid)),
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
