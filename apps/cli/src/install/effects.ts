import { randomBytes } from 'node:crypto'
import { closeSync, constants, fstatSync, lstatSync, openSync, readFileSync, statSync } from 'node:fs'
import { mkdir, open, rename, rm } from 'node:fs/promises'
import { basename, dirname, join } from 'node:path'
import { syncDir } from '@svc/core/node'
import { CliError } from '../context'
import { runCommand, shellQuote } from './exec'
import { readUserDb } from './user-db'

/** Who owns an installed file or directory (names, resolved in the target root's user database). */
export interface Ownership {
  mode: number
  user: string
  group: string
}

export interface EffectsOptions {
  /** `/`, or the staging directory of `--root`. */
  root: string
  dryRun: boolean
  env: Record<string, string | undefined>
  /** Where each change is reported, one line each. */
  log: (line: string) => void
}

/**
 * Every change the installer makes goes through here, so that `--dry-run` prints exactly what a real
 * run would do, `--root` redirects every write, and each change is reported once. Paths are target
 * paths (`/etc/svc/api.env`); files are written atomically with their mode and owner set before
 * the rename, so no reader ever sees a half-written file or one with the wrong owner.
 */
export class Effects {
  readonly root: string
  readonly dryRun: boolean
  private readonly env: Record<string, string | undefined>
  private readonly log: (line: string) => void
  /** Without root privileges a staging run cannot chown; it says so once and goes on. */
  private readonly canChown = process.getuid?.() === 0
  private warnedChown = false
  private readonly warnedIgnored = new Set<string>()

  constructor(options: EffectsOptions) {
    this.root = options.root
    this.dryRun = options.dryRun
    this.env = options.env
    this.log = options.log
  }

  /** This machine's path for a target path. */
  local(target: string): string {
    return this.root === '/' ? target : join(this.root, target)
  }

  /**
   * A target file's text, or undefined when it does not exist — or when it is not a plain file of its
   * own: a symbolic link or a hard link is never read through (the svc user may create names in
   * /etc/svc, and root must not copy what such a link points at into a file svc can read). The
   * caller then writes the file afresh, which replaces the link itself.
   */
  read(target: string): string | undefined {
    return this.readBytes(target)?.toString('utf8')
  }

  /** {@link read}, as bytes. */
  readBytes(target: string): Buffer | undefined {
    let fd: number
    try {
      fd = openSync(this.local(target), constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK)
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ELOOP') this.ignored(target, 'a symbolic link')
      return undefined
    }
    try {
      const st = fstatSync(fd)
      if (!st.isFile()) return this.ignored(target, 'not a regular file')
      if (st.nlink > 1) return this.ignored(target, `a hard link (${st.nlink} names)`)
      return readFileSync(fd)
    } catch {
      return undefined
    } finally {
      closeSync(fd)
    }
  }

  /** Whether the target path itself is a symbolic link (dangling or not). */
  isLink(target: string): boolean {
    return lstatOrUndefined(this.local(target))?.isSymbolicLink() ?? false
  }

  exists(target: string): boolean {
    try {
      statSync(this.local(target))
      return true
    } catch {
      return false
    }
  }

  /**
   * Creates a directory, or sets the owner and mode of the one there. Never through a symbolic link
   * (refused). `foreign: 'refuse'` stops when the directory exists and belongs to another user than
   * `own.user`: for directories whose files root or Caddy trust, where what someone else put there
   * cannot be made safe by a chown.
   */
  async mkdir(target: string, own: Ownership, options: { foreign?: 'refuse' } = {}): Promise<void> {
    const path = this.local(target)
    const before = lstatOrUndefined(path)
    if (before?.isSymbolicLink() || (before && !before.isDirectory()))
      throw new CliError(
        `${target} is ${before.isSymbolicLink() ? 'a symbolic link' : 'not a directory'}: svc install keeps a real directory there; move it away and run again`,
      )
    const ids = this.ids(own, this.dryRun)
    if (before && ids && options.foreign === 'refuse' && before.uid !== ids.uid)
      throw new CliError(
        `${target} belongs to uid ${before.uid}, not ${own.user}: check what is in it, remove it, and run again`,
      )
    if (this.dryRun) {
      if (!before) this.log(`would create ${target}/ (${describe(own)})`)
      return
    }
    await mkdir(dirname(path), { recursive: true }) // parents get the usual 0755, not own.mode
    if (!before) await mkdir(path, { mode: own.mode })
    await this.setOwner(path, own, constants.O_DIRECTORY)
    if (!before) this.log(`created ${target}/ (${describe(own)})`)
  }

  /** Writes `content` unless the file already has it (and its mode and owner); says which. */
  async write(target: string, content: string | Uint8Array, own: Ownership): Promise<void> {
    const path = this.local(target)
    const bytes = typeof content === 'string' ? Buffer.from(content) : content
    const before = this.readBytes(target)
    const ids = this.ids(own, this.dryRun)
    const st = lstatOrUndefined(path)
    const sameMeta =
      st !== undefined &&
      (st.mode & 0o7777) === own.mode &&
      (!ids || (st.uid === ids.uid && st.gid === ids.gid))
    if (before !== undefined && Buffer.compare(before, bytes) === 0 && sameMeta) {
      this.log(`${this.dryRun ? 'would leave' : 'kept'} ${target} (unchanged)`)
      return
    }
    const verb = before === undefined ? 'create' : 'update'
    if (this.dryRun) {
      this.log(`would ${verb} ${target} (${describe(own)})`)
      return
    }
    await mkdir(dirname(path), { recursive: true })
    const tmp = join(dirname(path), `.${basename(path)}.${randomBytes(6).toString('hex')}.tmp`)
    try {
      const fh = await open(tmp, 'wx', 0o600)
      try {
        await fh.writeFile(bytes)
        if (ids) await fh.chown(ids.uid, ids.gid)
        await fh.chmod(own.mode)
        await fh.sync()
      } finally {
        await fh.close()
      }
      await rename(tmp, path)
    } catch (error) {
      await rm(tmp, { force: true })
      throw error
    }
    await syncDir(dirname(path))
    this.log(`${verb === 'create' ? 'created' : 'updated'} ${target} (${describe(own)})`)
  }

  /**
   * Sets the owner and mode of an existing file (one another writer created, e.g. tokens.toml). Not
   * through a symbolic link: a chown that followed one could hand any file on the system to svc.
   */
  async own(target: string, own: Ownership): Promise<void> {
    if (this.dryRun) return
    await this.setOwner(this.local(target), own, 0)
  }

  /** chown + chmod on the opened file itself (O_NOFOLLOW), so no link planted there is followed. */
  private async setOwner(path: string, own: Ownership, flags: number): Promise<void> {
    let fh: Awaited<ReturnType<typeof open>>
    try {
      fh = await open(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK | flags)
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ELOOP')
        throw new CliError(`${path} is a symbolic link: svc install does not follow links it did not make`)
      throw error
    }
    try {
      const ids = this.ids(own)
      if (ids) await fh.chown(ids.uid, ids.gid)
      await fh.chmod(own.mode)
    } finally {
      await fh.close()
    }
  }

  async remove(target: string): Promise<void> {
    if (!this.exists(target)) return
    if (this.dryRun) {
      this.log(`would remove ${target}`)
      return
    }
    await rm(this.local(target), { force: true })
    this.log(`removed ${target}`)
  }

  /** Runs a command that changes the system; a failure stops the installer with its output. */
  async run(argv: string[], why: string): Promise<void> {
    if (this.dryRun) {
      this.log(`would run: ${shellQuote(argv)}   (${why})`)
      return
    }
    const r = await runCommand(argv, { env: this.env })
    if (r.code !== 0) {
      throw new CliError(
        `${shellQuote(argv)} failed (${why}):\n${r.output.trim().split('\n').slice(-15).join('\n')}`,
      )
    }
    this.log(`ran: ${shellQuote(argv)}   (${why})`)
  }

  /** Just a line of the report. */
  note(line: string): void {
    this.log(line)
  }

  private ignored(target: string, what: string): undefined {
    if (!this.warnedIgnored.has(target))
      this.log(`${target} is ${what}, not a file svc install wrote: its content is not read, it is replaced`)
    this.warnedIgnored.add(target)
    return undefined
  }

  private ids(own: Ownership, quiet = false): { uid: number; gid: number } | undefined {
    if (!this.canChown) {
      if (!quiet && !this.warnedChown && !this.dryRun) {
        this.warnedChown = true
        this.log('note: not running as root, so files keep your user as owner (set owners when deploying)')
      }
      return undefined
    }
    const db = readUserDb(this.root)
    const uid = db.uid(own.user)
    const gid = db.gid(own.group)
    if (uid === undefined || gid === undefined) {
      if (this.dryRun) return undefined
      const missing = uid === undefined ? `user ${own.user}` : `group ${own.group}`
      throw new CliError(`the ${missing} does not exist in ${this.local('/etc')}`)
    }
    return { uid, gid }
  }
}

function lstatOrUndefined(path: string) {
  try {
    return lstatSync(path)
  } catch {
    return undefined
  }
}

function describe(own: Ownership): string {
  return `${own.mode.toString(8).padStart(4, '0')} ${own.user}:${own.group}`
}
