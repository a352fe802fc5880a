import { type CliContext, CliError, type Command, handToServer } from '../context'
import { serverEntry } from '../server-entries'

/**
 * Runs a server (`serverEntry`) in this very process: no wrapper process stays resident, and the
 * signals sent to this pid (systemd's SIGTERM) reach the server, which drains, stops its upstreams
 * and exits with its own code. Never resolves: the server ends the process.
 */
export async function runServerHere(entry: string, ctx: CliContext): Promise<number> {
  handToServer(ctx.env)
  await import(entry)
  return new Promise<number>(() => {})
}

export const serveCommand: Command = {
  name: 'serve',
  summary: 'run the API in the foreground (what svc-api.service runs)',
  help: `Usage: svc serve

Runs the svc API in the foreground until SIGTERM or SIGINT (then it drains in-flight requests for
SVC_DRAIN_SECONDS and stops every upstream it started). Configured by the environment only (docs/configuration.md#environment:
SVC_HOST, SVC_PORT, SVC_CONFIG_DIR, SVC_AUTH_ENABLED, …); the installed service
reads /etc/svc/api.env. Logs are JSON lines on stderr. Exits with the API's exit code.`,
  async run(args, ctx) {
    if (args.length > 0) throw new CliError(`svc serve takes no arguments (got ${args.join(' ')})`, 2)
    return runServerHere(serverEntry('api'), ctx)
  },
}
