import { readFileSync } from 'node:fs'
import { readFile, rm } from 'node:fs/promises'
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
}

export function pidFilePath(stateDir: string, slot: string): string {
  return join(stateDir, 'run', `${slot}.json`)
}

export async function writePidFile(stateDir: string, record: PidRecord): Promise<void> {
  await writeFileAtomic(pidFilePath(stateDir, record.slot), `${JSON.stringify(record, null, 2)}\n`)
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
  if (!current || current.pid === pid) await rm(pidFilePath(stateDir, slot), { force: true })
}

/**
 * Whether `pid` is still the process we started (same argv), so that a recycled pid of some
 * unrelated process is never signalled.
 */
export function isSameProcess(record: PidRecord): boolean {
  try {
    const cmdline = readFileSync(`/proc/${record.pid}/cmdline`, 'utf8').split('\0').filter(Boolean)
    return cmdline.length === record.argv.length && cmdline.every((arg, i) => arg === record.argv[i])
  } catch {
    return false
  }
}
