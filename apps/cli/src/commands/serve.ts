import { spawn } from 'node:child_process'
import { constants } from 'node:os'
import { fileURLToPath } from 'node:url'
import { type CliContext, CliError, type Command } from '../context'

/** The API's entry in this checkout. */
const SERVE_TS = fileURLToPath(new URL('../../../api/src/serve.ts', import.meta.url))

/**
 * Starts the API in the foreground, the way `pnpm start` does (node with tsx's loader on the API's
 * serve.ts), with `env`; resolves with its exit code. SIGTERM and SIGINT are passed on, so the API
 * drains and stops its upstreams before this process exits. The one place that knows how the API is
 * launched.
 */
export function launchApi(ctx: CliContext): Promise<number> {
  const child = spawn(process.execPath, ['--import', 'tsx', SERVE_TS], {
    env: ctx.env as NodeJS.ProcessEnv,
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  child.stdout.pipe(ctx.stdout, { end: false })
  child.stderr.pipe(ctx.stderr, { end: false })
  const forward = (signal: NodeJS.Signals) => () => {
    if (child.exitCode === null && child.signalCode === null) child.kill(signal)
  }
  const onTerm = forward('SIGTERM')
  const onInt = forward('SIGINT')
  process.on('SIGTERM', onTerm)
  process.on('SIGINT', onInt)
  return new Promise((resolve, reject) => {
    child.once('error', (error) => reject(new CliError(`cannot start the API: ${error.message}`)))
    child.once('close', (code, signal) => {
      process.off('SIGTERM', onTerm)
      process.off('SIGINT', onInt)
      resolve(code ?? 128 + (signal ? constants.signals[signal] : 0))
    })
  })
}

export const serveCommand: Command = {
  name: 'serve',
  summary: 'run the API in the foreground (what svc-api.service runs)',
  help: `Usage: svc serve

Runs the svc API in the foreground until SIGTERM or SIGINT (then it drains in-flight requests for
SVC_DRAIN_SECONDS and stops every upstream it started). Configured by the environment only (README
"Configuration": SVC_HOST, SVC_PORT, SVC_CONFIG_DIR, SVC_AUTH_ENABLED, …); the installed service
reads /etc/svc/api.env. Logs are JSON lines on stderr. Exits with the API's exit code.`,
  async run(args, ctx) {
    if (args.length > 0) throw new CliError(`svc serve takes no arguments (got ${args.join(' ')})`, 2)
    return launchApi(ctx)
  },
}
