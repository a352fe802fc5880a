import { randomBytes } from 'node:crypto'
import { readFileSync } from 'node:fs'
import { chmod, chown, mkdir, open, readdir, rm, rmdir, stat } from 'node:fs/promises'
import { basename, dirname, join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'

export interface FileLockOptions {
  /** How long to keep trying before giving up. Default 10 s. */
  timeoutMs?: number
  /** Ignored: a lock is never taken over by age (an entry of a dead process is simply not counted). */
  staleMs?: number
}

/**
 * Runs `fn` while holding an exclusive lock on `path`, shared by every process that writes it (the
 * API and the CLI, each as whatever user it runs as).
 *
 * The lock is Lamport's bakery over a directory, `<dir>/.<name>.lock.d/`: each taker creates files
 * named after itself only (`c.<me>` while it picks a number, `t.<number>.<me>` while it waits and
 * holds), and goes in once no live taker is picking and none holds a smaller (number, name). So no
 * taker ever removes, renames or replaces another one's file to take the lock: an entry of a process
 * that is gone (its pid no longer exists, or is now another process: the name carries the process's
 * start time) is just not counted, and is cleaned up by whoever sees it. Two holders at once would
 * need a live process to be judged dead, which the start time rules out; so a crashed writer never
 * blocks the others, and a lock is never held twice. Release removes only the caller's own file.
 *
 * Throws when the lock is not had within `timeoutMs` (a live holder that hangs), naming the holder.
 */
export async function withFileLock<T>(
  path: string,
  fn: () => Promise<T>,
  options: FileLockOptions = {},
): Promise<T> {
  const dir = lockDirOf(path)
  const deadline = Date.now() + (options.timeoutMs ?? 10_000)
  const me = `${process.pid}.${START_TIME}.${randomBytes(6).toString('hex')}`
  const ticket = await takeTicket(dir, me)
  try {
    await waitForTurn(dir, me, ticket, deadline, path)
    return await fn()
  } finally {
    await rm(join(dir, ticketName(ticket, me)), { force: true })
    // Only when no other taker has a file in it (rmdir refuses otherwise); one about to create its
    // first file then gets ENOENT and makes the directory again.
    await rmdir(dir).catch(() => undefined)
  }
}

/** `<dir>/.<name>.lock.d`: beside the file, hidden, so listings of the directory never show it. */
export function lockDirOf(path: string): string {
  return join(dirname(path), `.${basename(path)}.lock.d`)
}

/** Picks a number above every one taken (the bakery's doorway) and leaves its ticket file. */
async function takeTicket(dir: string, me: string): Promise<number> {
  for (;;) {
    await makeLockDir(dir)
    const choosing = join(dir, `c.${me}`)
    try {
      await createEmpty(choosing)
      try {
        const entries = await readdir(dir)
        const top = Math.max(0, ...entries.map((e) => parseEntry(e)?.ticket ?? 0))
        await createEmpty(join(dir, ticketName(top + 1, me)))
        return top + 1
      } finally {
        await rm(choosing, { force: true })
      }
    } catch (error) {
      // The directory was removed by a holder leaving it empty: make it again.
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw lockError(dir, error)
    }
  }
}

async function waitForTurn(dir: string, me: string, ticket: number, deadline: number, path: string) {
  let delay = 1
  for (;;) {
    // First: nobody alive is picking a number (one who is may pick one below ours). Then, read
    // afresh: nobody alive holds a smaller ticket.
    const picking = await liveOthers(dir, me, (e) => e.ticket === null)
    const before =
      picking ??
      (await liveOthers(dir, me, (e) => e.ticket !== null && isBefore(e.ticket, e.who, ticket, me)))
    if (before === null) return
    if (Date.now() > deadline) {
      throw new Error(
        `timed out waiting for the lock on ${path}: process ${before.split('.')[0]} holds or waits for it (${dir})`,
      )
    }
    await sleep(delay)
    delay = Math.min(delay * 2, 10)
  }
}

interface Entry {
  /** null: picking a number (`c.<who>`). */
  ticket: number | null
  who: string
}

/** The first entry of another live process that `match` selects, or null; entries of the dead go. */
async function liveOthers(dir: string, me: string, match: (e: Entry) => boolean): Promise<string | null> {
  for (const name of await readdir(dir)) {
    const entry = parseEntry(name)
    if (!entry || entry.who === me || !match(entry)) continue
    if (isLive(entry.who)) return entry.who
    // Its own, unique name: removing it can affect no live taker. (In a sticky directory another
    // user's entry stays; it is not counted anyway.)
    await rm(join(dir, name), { force: true }).catch(() => undefined)
  }
  return null
}

function isBefore(ticket: number, who: string, mine: number, me: string): boolean {
  return ticket < mine || (ticket === mine && who < me)
}

const TICKET_DIGITS = 12

function ticketName(ticket: number, who: string): string {
  return `t.${String(ticket).padStart(TICKET_DIGITS, '0')}.${who}`
}

function parseEntry(name: string): Entry | null {
  const m = /^(?:c|t\.(\d+))\.(\d+\.\d+\.[0-9a-f]+)$/.exec(name)
  if (!m) return null
  return { ticket: m[1] === undefined ? null : Number(m[1]), who: m[2]! }
}

/**
 * A taker is live when its pid exists, is not a zombie, and (where /proc tells) was started when the
 * name says: a pid reused by another process does not hold anyone's lock.
 */
function isLive(who: string): boolean {
  const [pidText, started] = who.split('.')
  const pid = Number(pidText)
  if (!isAlive(pid)) return false
  const proc = procStat(pid)
  if (proc === null) return true
  return proc.state !== 'Z' && (started === '0' || proc.start === started)
}

/** State and start time (clock ticks since boot) of a process from /proc (Linux); null elsewhere. */
function procStat(pid: number): { state: string; start: string } | null {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, 'utf8')
    // Fields after the command name (which may hold spaces and parentheses): state is field 3,
    // starttime field 22.
    const fields = text.slice(text.lastIndexOf(')') + 2).split(' ')
    return { state: fields[0] ?? '', start: fields[19] ?? '0' }
  } catch {
    return null
  }
}

const START_TIME = procStat(process.pid)?.start ?? '0'

/**
 * The lock directory: group of the directory it is in, mode 0770, so the API (the service user) and
 * the CLI (root, or the user owning a user install) can both take the lock on one file.
 */
async function makeLockDir(dir: string): Promise<void> {
  try {
    await mkdir(dir, { mode: 0o770 })
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code
    if (code === 'EEXIST') return
    if (code !== 'ENOENT') throw lockError(dir, error)
    await mkdir(dirname(dir), { recursive: true })
    return makeLockDir(dir)
  }
  try {
    const parent = await stat(dirname(dir))
    await chown(dir, -1, parent.gid)
  } catch {
    // Not a member of that group: the directory keeps ours (a user install has one user anyway).
  }
  await chmod(dir, 0o770).catch(() => undefined) // the umask narrowed mkdir's mode
}

async function createEmpty(file: string): Promise<void> {
  const fh = await open(file, 'wx', 0o600)
  await fh.close()
}

function lockError(dir: string, error: unknown): Error {
  const code = (error as NodeJS.ErrnoException).code
  if (code === 'EACCES' || code === 'EPERM') {
    return new Error(
      `cannot take the lock in ${dir}: permission denied (it must be writable by every user that changes the file next to it)`,
    )
  }
  return error instanceof Error ? error : new Error(String(error))
}

export function isAlive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM'
  }
}
