/**
 * Starting an upstream program without forking the API on the way: a `/bin/sh` spawned ahead of
 * need waits on its stdin, and a launch writes it one line, `exec <program> <args>` with the
 * environment's differences and the log redirection, so the shell becomes the upstream (same pid,
 * same process group). The next shell is spawned right after, while the new upstream loads.
 *
 * Why: Node spawns by forking the whole API process, and the fork copies its page tables with the
 * event loop blocked: 4–6 ms for the API after a few loads (3.4 ms from a fresh 50 MB node, 7 ms
 * from a 230 MB one, measured on the bench's box), on the critical path of every swap. A swap of two
 * tiny models takes ~60 ms; the fork was the largest of svc's own steps (docs/development.md).
 *
 * The shell's environment is what every upstream gets (`upstream-env.ts` without a provider's
 * variables); the line exports the rest. A shell that died meanwhile is replaced by a fresh spawn
 * (what a launch costs without this). The shell reads its stdin to the end, so it exits with the
 * API (its pipe closes) and never outlives it.
 */
import { type ChildProcess, spawn } from 'node:child_process'

export interface LaunchRequest {
  /** Absolute path of the program. */
  path: string
  args: readonly string[]
  /** The whole environment it gets (upstream-env.ts). */
  env: Record<string, string>
  /** Where its stdout and stderr go, appended (the slot's log file, made already). */
  logPath: string
}

/** A variable name the shell can export; anything else goes through a fresh spawn instead. */
const NAME = /^[A-Za-z_][A-Za-z0-9_]*$/

export class ShellLauncher {
  private ready: ChildProcess | null = null

  /** `baseEnv`: the environment the waiting shells get (what every upstream's starts from). */
  constructor(private readonly baseEnv: Record<string, string>) {}

  /**
   * Starts the program in a process group of its own, stdin from /dev/null, output appended to
   * `logPath`. Resolves once the process exists (its pid is the upstream's); a program that cannot
   * run exits with the shell's 126/127 and its reason in the log. Rejects when no shell can start.
   */
  async launch(req: LaunchRequest): Promise<ChildProcess> {
    const line = this.lineFor(req)
    let shell = this.take()
    if (!shell) shell = await this.spawnShell()
    shell.stdin!.end(line)
    // The next one forks while this upstream loads, not when the next swap waits for it.
    setImmediate(() => this.prepare())
    return shell
  }

  /** Ends the waiting shell (it would end with the API anyway). */
  close(): void {
    this.ready?.kill('SIGKILL')
    this.ready = null
  }

  private lineFor(req: LaunchRequest): string {
    const exports: string[] = []
    for (const [name, value] of Object.entries(req.env)) {
      if (this.baseEnv[name] === value) continue
      if (!NAME.test(name)) throw new Error(`cannot pass ${JSON.stringify(name)} through a shell`)
      exports.push(`${name}=${quote(value)}`)
    }
    const unset = Object.keys(this.baseEnv).filter((name) => !(name in req.env))
    const argv = [req.path, ...req.args].map(quote).join(' ')
    return [
      unset.length ? `unset ${unset.join(' ')}` : '',
      exports.length ? `export ${exports.join(' ')}` : '',
      `exec ${argv} </dev/null >>${quote(req.logPath)} 2>&1\n`,
    ]
      .filter(Boolean)
      .join('; ')
  }

  private take(): ChildProcess | null {
    const shell = this.ready
    this.ready = null
    if (!shell || shell.exitCode !== null || shell.signalCode !== null || !shell.stdin?.writable) return null
    return shell
  }

  private prepare(): void {
    if (this.ready) return
    this.spawnShell().then(
      (shell) => {
        if (this.ready) shell.kill('SIGKILL')
        else this.ready = shell
      },
      () => undefined, // the next launch spawns its own and reports why it cannot
    )
  }

  private spawnShell(): Promise<ChildProcess> {
    const shell = spawn('/bin/sh', ['-s'], {
      env: this.baseEnv,
      detached: true, // its own process group: stop signals reach whatever the upstream forks
      stdio: ['pipe', 'ignore', 'ignore'],
    })
    shell.unref()
    ;(shell.stdin as unknown as { unref?: () => void }).unref?.()
    // A shell killed before its line is written (EPIPE): its exit tells the runtime, not a crash.
    shell.stdin?.on('error', () => undefined)
    return new Promise((resolve, reject) => {
      shell.once('spawn', () => resolve(shell))
      shell.once('error', reject)
    })
  }
}

/** `value` as one POSIX shell word: single quotes, each `'` as `'\''`. */
export function quote(value: string): string {
  return `'${value.replaceAll("'", "'\\''")}'`
}
