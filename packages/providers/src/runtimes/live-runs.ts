/**
 * Which svc processes run on a state directory right now. Two svc processes may share one (the
 * installed service and a `pnpm start` on the same box both resolve to `/var/lib/svc`), so they share
 * one instance id: each must leave the other's upstreams alone. Every running API records itself in
 * `<state>/live/<pid>.json` with the identity `/proc` gives it (start time and boot id, as pid files
 * do), and `recover` touches nothing while another live svc is recorded there: what it finds may be
 * that svc's. A record whose process is gone (a crash) is stale and ignored (and removed).
 */

import { mkdir, readdir, readFile, rm } from 'node:fs/promises'
import { hostname } from 'node:os'
import { join, resolve } from 'node:path'
import { writeFileAtomic } from '@svc/core/node'
import { isSameProcess, type PidRecord, processIdentity } from './pid-file'

interface LiveRecord {
  pid: number
  startTicks?: number
  bootId?: string
  startedAt: string
}

/** This svc's run on a state directory: `others()` names the other live svc processes there. */
export interface LiveRun {
  /** Pids of the other svc processes running on this state directory now (without this one). */
  others(): Promise<number[]>
  /** Removes this process's record (on shutdown). Idempotent. */
  release(): Promise<void>
  /** Why this process could not record itself (another user's `live/` directory), if it could not. */
  problem?: string
}

function liveDir(stateDir: string): string {
  return join(stateDir, 'live')
}

/**
 * Where an upstream's svc keeps its state, as a label value: `<hostname>:<absolute state dir>`. With
 * it, `recover` knows the leftovers of an older instance id of its own state dir, and `svc doctor`
 * can look whether the svc that made an upstream still runs or its state dir is gone.
 */
export function instanceHome(stateDir: string): string {
  return `${hostname()}:${resolve(stateDir)}`
}

/**
 * Records this process as running on `stateDir`. Never throws: a record it cannot write (a `live/`
 * directory another user made) costs the other svc its protection, not this one its start, so it is
 * reported in `problem` for the log.
 */
export async function registerLiveRun(stateDir: string, pid = process.pid): Promise<LiveRun> {
  const dir = liveDir(stateDir)
  const record: LiveRecord = { pid, ...processIdentity(pid), startedAt: new Date().toISOString() }
  const file = join(dir, `${pid}.json`)
  const problem = await mkdir(dir, { recursive: true })
    .then(() => writeFileAtomic(file, `${JSON.stringify(record)}\n`))
    .then(
      () => undefined,
      (error: Error) => `cannot record this svc in ${dir}: ${error.message}`,
    )
  return {
    others: async () => (await liveRuns(stateDir)).filter((p) => p !== pid),
    release: () => rm(file, { force: true }),
    ...(problem ? { problem } : {}),
  }
}

/**
 * Pids of the svc processes recorded as running on `stateDir` whose process is still the one that
 * recorded itself. Stale records are removed on the way unless `prune` is false (a look from outside,
 * `svc doctor`). Never throws: an unreadable directory answers [] (nothing can be known to run there).
 */
export async function liveRuns(stateDir: string, options: { prune?: boolean } = {}): Promise<number[]> {
  const dir = liveDir(stateDir)
  const names = await readdir(dir).catch(() => [] as string[])
  const alive: number[] = []
  for (const name of names) {
    if (!/^\d+\.json$/.test(name)) continue
    const record = await readFile(join(dir, name), 'utf8')
      .then((text) => JSON.parse(text) as LiveRecord)
      .catch(() => undefined)
    if (!record || !Number.isInteger(record.pid)) continue
    const asPid = { ...record, argv: [] } as unknown as PidRecord
    // Records always carry the identity on Linux; without /proc nothing can be told: count it live.
    const same = record.startTicks === undefined ? true : isSameProcess(asPid)
    if (same) alive.push(record.pid)
    else if (options.prune !== false) await rm(join(dir, name), { force: true }).catch(() => undefined)
  }
  return alive
}
