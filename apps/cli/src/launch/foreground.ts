/**
 * `svc start --foreground`: both servers as children of this process, their logs on this terminal.
 * SIGTERM and SIGINT go to both (SIGHUP as SIGTERM) and this process exits once both have stopped
 * (0 when they stopped cleanly). The API is the product: when it exits on its own the chat app is
 * stopped and this exits with the API's code; when the chat app exits on its own (say, its port is
 * taken) the API keeps running and stderr says so.
 */
import { type ChildProcess, spawn } from 'node:child_process'
import type { CliContext } from '../context'
import { type ServerSpec, serverEnv, serversFor } from './servers'

export function runInForeground(ctx: CliContext): Promise<number> {
  const env = serverEnv(ctx.env)
  const children = new Map<ServerSpec, ChildProcess>()
  let stopping = false
  let exitCode = 0
  return new Promise<number>((resolve) => {
    const signals = ['SIGTERM', 'SIGINT', 'SIGHUP'] as const
    const onSignal = (signal: NodeJS.Signals) => stopAll(signal === 'SIGHUP' ? 'SIGTERM' : signal)
    const done = () => {
      for (const s of signals) process.off(s, onSignal)
      resolve(exitCode)
    }
    const stopAll = (signal: NodeJS.Signals) => {
      stopping = true
      if (children.size === 0) done()
      for (const child of children.values()) child.kill(signal)
    }
    for (const s of signals) process.on(s, onSignal)
    for (const spec of serversFor(ctx.env)) {
      const child = spawn(process.execPath, spec.argv, { stdio: 'inherit', env: env as NodeJS.ProcessEnv })
      children.set(spec, child)
      child.on('exit', (code, signal) => {
        children.delete(spec)
        if (stopping) {
          if (code !== 0 && exitCode === 0) exitCode = code ?? 1
          if (children.size === 0) done()
          return
        }
        if (spec.app === 'api') {
          ctx.stderr.write(`svc: the API exited (${signal ?? code}); stopping the chat app\n`)
          exitCode = code ?? 1
          stopAll('SIGTERM')
        } else {
          ctx.stderr.write(`svc: the chat app exited (${signal ?? code}); the API keeps running\n`)
        }
      })
    }
  })
}
