import {
  closeSync,
  type FSWatcher,
  openSync,
  readSync,
  renameSync,
  statSync,
  truncateSync,
  watch,
} from 'node:fs'
import { mkdir } from 'node:fs/promises'
import { dirname } from 'node:path'
import { LogRing } from './runtime'

/** Log folders this process has made or found (`LogFile.create`). */
const madeDirs = new Set<string>()

/** A log file grows at most this much before it is cut back to empty (the child appends with O_APPEND). */
export const MAX_LOG_BYTES = 16 * 1024 * 1024

/**
 * The upstream's stdout/stderr go straight into `<state>/logs/<slot>.log` (an O_APPEND file
 * descriptor, not a pipe): an upstream must survive an API restart to be adopted, and a pipe whose
 * reader died would kill it with SIGPIPE on its next log line. A tailer feeds the bounded ring.
 */
export class LogFile {
  readonly ring: LogRing
  private offset = 0
  private timer: NodeJS.Timeout | undefined
  /** Lines someone waits for (`sees`), and the file's change watch that serves them. */
  private waiters: { pattern: RegExp; resolve(): void }[] = []
  private watcher: FSWatcher | undefined
  /** The last line read while it was not complete yet, for the waiters' matching. */
  private partial = ''

  private constructor(
    readonly path: string,
    ringLines: number,
  ) {
    this.ring = new LogRing(ringLines)
  }

  /** Opens a fresh log for a new upstream; the previous run's log is kept as `<path>.1`. */
  static async create(path: string, ringLines = 500): Promise<{ log: LogFile; fd: number }> {
    // The folder is made once per process (every swap opens a log), again only if it went meanwhile.
    if (!madeDirs.has(dirname(path))) await mkdir(dirname(path), { recursive: true })
    try {
      renameSync(path, `${path}.1`)
    } catch {
      // no previous log
    }
    let fd: number
    try {
      fd = openSync(path, 'a', 0o640)
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error
      await mkdir(dirname(path), { recursive: true })
      fd = openSync(path, 'a', 0o640)
    }
    madeDirs.add(dirname(path))
    return { log: new LogFile(path, ringLines), fd }
  }

  /** Attaches to the log of an adopted upstream (tails from its current end). */
  static attach(path: string, ringLines = 500): LogFile {
    const log = new LogFile(path, ringLines)
    try {
      log.offset = statSync(path).size
    } catch {
      log.offset = 0
    }
    return log
  }

  /** Starts tailing (every `intervalMs`); call `stop` when the upstream is gone. */
  follow(intervalMs = 250): void {
    this.timer ??= setInterval(() => this.tick(), intervalMs)
    this.timer.unref()
  }

  /** A poll from a timer or the watch: a file gone or cut between its stat and its read waits for the next. */
  private tick(): void {
    try {
      this.poll()
    } catch {
      // read again at the next tick
    }
  }

  /**
   * Resolves when a line matching `pattern` is written from now on. While anyone waits, the file is
   * watched for changes (inotify), so the line is seen as it is written, not at the next poll. Never
   * rejects; never settles if the line never comes (or after `stop`).
   */
  sees(pattern: RegExp): Promise<void> {
    return new Promise((resolve) => {
      this.waiters.push({ pattern, resolve })
      try {
        this.watcher ??= watch(this.path, { persistent: false }, () => this.tick()).on('error', () =>
          this.unwatch(),
        )
      } catch {
        // cannot watch (no inotify left): the poll still finds it, later
      }
    })
  }

  /** Reads what was written since the last poll into the ring; cuts an oversized file. */
  poll(): void {
    let size: number
    try {
      size = statSync(this.path).size
    } catch {
      return
    }
    if (size < this.offset) this.offset = 0 // cut back by us or rotated
    if (size > this.offset) {
      const fd = openSync(this.path, 'r')
      try {
        const buf = Buffer.alloc(Math.min(size - this.offset, 1024 * 1024))
        const n = readSync(fd, buf, 0, buf.length, this.offset)
        this.offset += n
        const text = buf.subarray(0, n).toString('utf8')
        this.ring.push(text)
        if (this.waiters.length > 0) this.match(text)
      } finally {
        closeSync(fd)
      }
    }
    if (size > MAX_LOG_BYTES) {
      truncateSync(this.path, 0)
      this.offset = 0
    }
  }

  stop(): void {
    this.tick()
    if (this.timer) clearInterval(this.timer)
    this.timer = undefined
    this.stopWaiting() // gone: what they wait for never comes
  }

  /** Drops the waiters (their promises never settle) and the watch: the tailer goes on at its interval. */
  stopWaiting(): void {
    this.waiters = []
    this.unwatch()
  }

  private match(text: string): void {
    const lines = (this.partial + text).split('\n')
    this.partial = lines.pop()!.slice(-4096)
    for (const waiter of [...this.waiters]) {
      if (!lines.some((line) => waiter.pattern.test(line))) continue
      this.waiters.splice(this.waiters.indexOf(waiter), 1)
      waiter.resolve()
    }
    if (this.waiters.length === 0) this.unwatch()
  }

  private unwatch(): void {
    this.watcher?.close()
    this.watcher = undefined
  }
}
