import { randomBytes } from 'node:crypto'
import { readFileSync, statSync } from 'node:fs'
import { chmod, chown, mkdir, open, rename, rm } from 'node:fs/promises'
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

  /** A target file's text, or undefined when it does not exist. */
  read(target: string): string | undefined {
    try {
      return readFileSync(this.local(target), 'utf8')
    } catch {
      return undefined
    }
  }

  exists(target: string): boolean {
    try {
      statSync(this.local(target))
      return true
    } catch {
      return false
    }
  }

  async mkdir(target: string, own: Ownership): Promise<void> {
    const path = this.local(target)
    const before = statOrUndefined(path)
    if (this.dryRun) {
      if (!before) this.log(`would create ${target}/ (${describe(own)})`)
      return
    }
    await mkdir(dirname(path), { recursive: true }) // parents get the usual 0755, not own.mode
    if (!before) await mkdir(path, { mode: own.mode })
    const ids = this.ids(own)
    if (ids) await chown(path, ids.uid, ids.gid)
    await chmod(path, own.mode)
    if (!before) this.log(`created ${target}/ (${describe(own)})`)
  }

  /** Writes `content` unless the file already has it (and its mode and owner); says which. */
  async write(target: string, content: string, own: Ownership): Promise<void> {
    const path = this.local(target)
    const before = this.read(target)
    const ids = this.ids(own, this.dryRun)
    const st = statOrUndefined(path)
    const sameMeta =
      st !== undefined &&
      (st.mode & 0o7777) === own.mode &&
      (!ids || (st.uid === ids.uid && st.gid === ids.gid))
    if (before === content && sameMeta) {
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
        await fh.writeFile(content)
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

  /** Sets the owner and mode of an existing file (one another writer created, e.g. tokens.toml). */
  async own(target: string, own: Ownership): Promise<void> {
    if (this.dryRun) return
    const ids = this.ids(own)
    if (ids) await chown(this.local(target), ids.uid, ids.gid)
    await chmod(this.local(target), own.mode)
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

function statOrUndefined(path: string) {
  try {
    return statSync(path)
  } catch {
    return undefined
  }
}

function describe(own: Ownership): string {
  return `${own.mode.toString(8).padStart(4, '0')} ${own.user}:${own.group}`
}
