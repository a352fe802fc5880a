import { createServer } from 'node:http'
import { authGatePortOf } from '../cli-env'
import { CliError, type Command } from '../context'
import { cliFallback, cliVar } from '../env-variables'
import { createBasicGate } from '../gate/basic-gate'

/** Where the gate listens unless SVC_AUTH_GATE_PORT says otherwise (loopback only, always). */
export const GATE_DEFAULT_PORT = Number(cliFallback('SVC_AUTH_GATE_PORT'))

const HELP = `Usage: svc auth-gate

Checks the admin password for the reverse proxy (what svc-auth.service runs; Caddy asks it with
forward_auth on every signed-in route). Failed sign-ins are throttled per client address: 10 at
once, then one every 6 seconds; more get 429 with Retry-After. Listens on 127.0.0.1 only, until
SIGTERM or SIGINT. Logs are JSON lines on stderr.

Environment: SVC_AUTH_GATE_USERS (the users file, user:bcrypt-hash lines; svc install writes
/etc/svc/admin.htpasswd), SVC_PROXY_SECRET (only requests that carry it are answered),
SVC_AUTH_GATE_PORT (default ${GATE_DEFAULT_PORT}).`

export const authGateCommand: Command = {
  name: 'auth-gate',
  summary: 'check the admin password for the reverse proxy, with a rate limit (svc-auth.service)',
  help: HELP,
  async run(args, ctx) {
    if (args.length > 0) throw new CliError(`svc auth-gate takes no arguments (got ${args.join(' ')})`, 2)
    const usersFile = cliVar(ctx.env, 'SVC_AUTH_GATE_USERS')
    const secret = cliVar(ctx.env, 'SVC_PROXY_SECRET')
    if (!usersFile || !secret)
      throw new CliError(
        'svc auth-gate needs SVC_AUTH_GATE_USERS and SVC_PROXY_SECRET (svc install sets both)',
        2,
      )
    const port = authGatePortOf(ctx.env)
    const log = (level: 'info' | 'warn' | 'error', msg: string, fields: Record<string, unknown> = {}) =>
      ctx.stderr.write(`${JSON.stringify({ level, time: new Date().toISOString(), msg, ...fields })}\n`)
    const gate = createBasicGate({ usersFile, secret, log })
    const server = createServer((req, res) => {
      gate(req, res).catch((error: Error) => {
        log('error', 'auth gate failed', { error: error.message })
        if (!res.headersSent)
          res.writeHead(503, { 'content-type': 'application/json' }).end(
            JSON.stringify({
              error: {
                code: 'auth.unavailable',
                message: 'the auth gate cannot check passwords now',
                type: 'server_error',
                param: null,
              },
            }),
          )
      })
    })
    server.headersTimeout = 10_000
    server.requestTimeout = 10_000
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject)
      server.listen(port, '127.0.0.1', resolve)
    })
    const address = server.address()
    const url = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : port}`
    log('info', 'svc auth gate listening', { url })
    return new Promise<number>((resolve) => {
      const stop = () => server.close(() => resolve(0))
      process.once('SIGTERM', stop)
      process.once('SIGINT', stop)
    })
  },
}
