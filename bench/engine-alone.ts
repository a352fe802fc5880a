/**
 * The engine without svc, started by hand the way a careful script would: the same llama-server
 * command line svc ran (read from the running process), another port, `/health` polled every 5 ms —
 * the fastest anyone could know it is ready, so svc's own cost is all that is left in the difference.
 */
import { type ChildProcess, spawn } from 'node:child_process'
import { readFile } from 'node:fs/promises'
import { freePort } from '@svc/providers/internals'

export interface HandStarted {
  /** spawn → first `/health` 200 (ms). */
  readyMs: number
  child: ChildProcess
  stop(): Promise<void>
}

/** The argv of a running process (`/proc/<pid>/cmdline`). */
export async function commandLineOf(pid: number): Promise<string[]> {
  return (await readFile(`/proc/${pid}/cmdline`, 'utf8')).split('\0').filter(Boolean)
}

/** `argv` with the value after `flag` replaced (or the flag added). */
function withFlag(argv: readonly string[], flags: readonly string[], value: string): string[] {
  const out = [...argv]
  const i = out.findIndex((a) => flags.includes(a))
  if (i >= 0) out[i + 1] = value
  else out.push(flags[0]!, value)
  return out
}

export async function startByHand(argv: readonly string[], model: string): Promise<HandStarted> {
  const port = await freePort('127.0.0.1')
  const args = withFlag(withFlag(argv.slice(1), ['--port'], String(port)), ['-m', '--model'], model)
  const began = performance.now()
  const child = spawn(argv[0]!, args, { stdio: 'ignore' })
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()))
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM')
    await exited
  }
  const deadline = began + 60_000
  for (;;) {
    const ok = await fetch(`http://127.0.0.1:${port}/health`).then(
      async (r) => {
        await r.body?.cancel()
        return r.status === 200
      },
      () => false,
    )
    if (ok) return { readyMs: performance.now() - began, child, stop }
    if (performance.now() > deadline || child.exitCode !== null) {
      await stop()
      throw new Error(`llama-server started by hand was not healthy (${args.join(' ')})`)
    }
    await new Promise((r) => setTimeout(r, 5))
  }
}
