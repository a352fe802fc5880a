import { spawn } from 'node:child_process'

export interface RunOptions {
  cwd?: string
  env?: NodeJS.ProcessEnv
  signal?: AbortSignal
  /** Every line the command writes (stdout and stderr). */
  onLine?: (line: string) => void
}

/** Runs a command to completion; rejects with its last output lines when it fails. */
export function runCommand(cmd: string, args: string[], options: RunOptions = {}): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, {
      cwd: options.cwd,
      // without one, the child inherits this process's environment (spawn's default)
      ...(options.env ? { env: options.env } : {}),
      stdio: ['ignore', 'pipe', 'pipe'],
      signal: options.signal,
    })
    const tail: string[] = []
    let out = ''
    let partial = ''
    const onData = (d: Buffer) => {
      const text = partial + d.toString()
      const lines = text.split('\n')
      partial = lines.pop() ?? ''
      for (const line of lines) {
        out += `${line}\n`
        tail.push(line)
        if (tail.length > 30) tail.shift()
        options.onLine?.(line)
      }
    }
    child.stdout.on('data', onData)
    child.stderr.on('data', onData)
    child.on('error', (error) => reject(new Error(`${cmd} could not run: ${error.message}`)))
    child.on('close', (code) => {
      if (partial) {
        tail.push(partial)
        out += partial
      }
      if (code === 0) resolve(out)
      else reject(new Error(`${cmd} ${args.join(' ')} failed (exit ${code}):\n${tail.join('\n')}`))
    })
  })
}
