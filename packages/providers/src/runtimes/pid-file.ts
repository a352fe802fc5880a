import { readFileSync } from 'node:fs'
import { readFile, unlink } from 'node:fs/promises'
import { join } from 'node:path'
import { writeFileAtomic } from '@svc/core/node'

/** What the process runtime records about a running upstream, in `<state>/run/<slot>.json`. */
export interface PidRecord {
  pid: number
  slot: string
  model: string
  port: number
  host: string
  argv: string[]
  logFile: string
  startedAt: string
  /**
   * The process's identity: its start time in clock ticks since boot (`/proc/<pid>/stat`, field 22)
   * and the boot id. A pid with the same start time in the same boot is the same process, whatever
   * it exec'd into since (wrapper scripts, `sh -c 'exec …'`). Absent in records of older versions.
   */
  startTicks?: number
  bootId?: string
  /** The upstream's own key (`UpstreamHandle.apiKey`): why the file is 0600. */
  apiKey?: string
}

/** The identity `/proc` gives a running process, or undefined when it is gone (or not Linux). */
export function processIdentity(pid: number): { startTicks: number; bootId: string } | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
    // "pid (comm) state ppid …": comm may hold spaces and parentheses; fields resume after the last ')'.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
    const startTicks = Number(fields[19]) // field 22 overall; `state` is field 3
    const bootId = readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim()
    return Number.isFinite(startTicks) ? { startTicks, bootId } : undefined
  } catch {
    return undefined
  }
}

export function pidFilePath(stateDir: string, slot: string): string {
  return join(stateDir, 'run', `${slot}.json`)
}

export async function writePidFile(stateDir: string, record: PidRecord): Promise<void> {
  // Not durable: a pid names a process of this boot only (the record carries the boot id), so a
  // power loss voids it anyway; an engine start waits for this write, and two fsyncs cost a swap ms.
  await writeFileAtomic(pidFilePath(stateDir, record.slot), `${JSON.stringify(record, null, 2)}\n`, {
    mode: 0o600,
    durable: false,
  })
}

export async function readPidFile(stateDir: string, slot: string): Promise<PidRecord | undefined> {
  try {
    const data = JSON.parse(await readFile(pidFilePath(stateDir, slot), 'utf8')) as PidRecord
    return Number.isInteger(data.pid) && data.pid > 1 ? data : undefined
  } catch {
    return undefined
  }
}

export async function removePidFile(stateDir: string, slot: string, pid: number): Promise<void> {
  // Only our own record: a newer start may already have replaced it.
  const current = await readPidFile(stateDir, slot)
  // unlink, not rm: rm's directory handling costs a synchronous lstat on every swap.
  if (!current || current.pid === pid)
    await unlink(pidFilePath(stateDir, slot)).catch((error: NodeJS.ErrnoException) => {
      if (error.code !== 'ENOENT') throw error
    })
}

/**
 * Whether `pid` is still the process we started, so that a recycled pid of some unrelated process is
 * never signalled: the same start time in the same boot (records that carry it), else the same argv
 * (records written before svc recorded the identity).
 */
export function isSameProcess(record: PidRecord): boolean {
  if (record.startTicks !== undefined) {
    const now = processIdentity(record.pid)
    return now !== undefined && now.startTicks === record.startTicks && now.bootId === record.bootId
  }
  try {
    const cmdline = readFileSync(`/proc/${record.pid}/cmdline`, 'utf8').split('\0').filter(Boolean)
    return cmdline.length === record.argv.length && cmdline.every((arg, i) => arg === record.argv[i])
  } catch {
    return false
  }
}
