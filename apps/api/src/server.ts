/**
 * Builds and starts the whole svc server from a parsed environment: wiring, app, HTTP listener.
 * `serve.ts` calls it for production; integration tests call it in-process on port 0.
 */
import { createServer, type Server } from 'node:http'
import { checkTokensFile, createHostRule, createProxyTrust, thisMachineHostnames } from '@svc/auth'
import type { Logger } from '@svc/core/node'
import { type AppType, createApp } from './app'
import { answerClientError } from './client-error'
import { createCors } from './cors'
import type { ServeEnv } from './env'
import { createHttpHandler } from './http-handler'
import { createMetrics } from './metrics'
import { authGuard, createAuthenticator } from './middleware/auth'
import { hostGuard } from './middleware/host'
import { VERSION } from './version'
import { createWiring, type Wiring } from './wiring'

export interface SvcServer {
  server: Server
  url: string
  wiring: Wiring
  /** The Hono app (its `routes` list every management route: the browser-origin suite walks them). */
  app: AppType
  /** Stops accepting, drains for up to `drainMs`, stops every slot. Idempotent. */
  stop(): Promise<void>
}

export interface StartOptions {
  env: ServeEnv
  rawEnv: Record<string, string | undefined>
  logger: Logger
}

export async function startSvc(options: StartOptions): Promise<SvcServer> {
  const { env, logger } = options
  // A broken tokens.toml at start: refuse, naming file and line, rather than run with no tokens
  // (while running, the last good tokens stay in force instead).
  const tokensProblem = await checkTokensFile(env.paths.configDir)
  if (tokensProblem) throw new Error(`${tokensProblem}; fix it and start svc again (svc never rewrites it)`)
  const metrics = createMetrics()
  const wiring = await createWiring({ env, logger, metrics, rawEnv: options.rawEnv })
  const app = createApp({
    version: VERSION,
    startedAt: Date.now(),
    paths: env.paths,
    metrics,
    logger,
    ...wiring.deps,
  })
  // The raw inference path gets the same check as the app (same verifier, cache and throttle).
  // Then the quota check (memory only), which also notes who the request counts for.
  const admit = wiring.usage?.gate.admit
  const guard = env.authEnabled
    ? { guard: authGuard(createAuthenticator(wiring.deps.auth), admit ? { admit } : {}) }
    : {}
  const cors = createCors(env.corsOrigins)
  // Before everything, every route: a Host svc does not answer to is DNS rebinding or a mistake.
  const refuse = hostGuard(createHostRule({ allowed: env.allowedHosts, machine: thisMachineHostnames }), {
    trusts: createProxyTrust({ trustedProxies: env.trustedProxies, proxySecret: env.proxySecret }),
    secretSet: env.proxySecret !== undefined,
  })
  const handler = createHttpHandler({ app, dispatcher: wiring.dispatcher, cors, refuse, ...guard })
  const server = createServer(handler)
  server.on('clientError', answerClientError)
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(env.port, env.host, () => {
      server.off('error', reject)
      resolve()
    })
  })
  const address = server.address()
  const port = typeof address === 'object' && address ? address.port : env.port
  const host = env.host.includes(':') ? `[${env.host}]` : env.host
  const url = `http://${host}:${port}`
  logger.info('svc listening', {
    url,
    version: VERSION,
    configDir: env.paths.configDir,
    stateDir: env.paths.stateDir,
    auth: env.authEnabled,
  })
  // Recovery and default loads run in the background: the API answers (and reports progress) at once.
  void wiring.start().catch((error) => logger.error('startup loads failed', { error }))

  let stopping: Promise<void> | undefined
  return {
    server,
    url,
    wiring,
    app,
    stop() {
      stopping ??= (async () => {
        const closed = new Promise<void>((resolve) => server.close(() => resolve()))
        server.closeIdleConnections()
        const timer = setTimeout(() => server.closeAllConnections(), env.drainMs)
        await closed
        clearTimeout(timer)
        await wiring.stop()
      })()
      return stopping
    },
  }
}
