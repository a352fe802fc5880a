/**
 * Builds and starts the whole svc server from a parsed environment: wiring, app, HTTP listener.
 * `serve.ts` calls it for production; integration tests call it in-process on port 0.
 */
import type { Server } from 'node:http'
import { checkTokensFile, createHostRule, createProxyTrust, thisMachineHostnames } from '@svc/auth'
import { closeHttp, type Logger, SVC_VERSION, serveHttp } from '@svc/core/node'
import { type AppType, createApp } from './app'
import { answerClientError } from './client-error'
import { createCors } from './cors'
import type { ServeEnv } from './env'
import { createHttpHandler } from './http-handler'
import { createMetrics } from './metrics'
import { authGuard, createAuthenticator } from './middleware/auth'
import { hostGuard } from './middleware/host'
import { newServer } from './new-server'
import { createOllamaHandler } from './ollama/ollama-handler'
import { createOllamaListener } from './ollama/ollama-listener'
import { realtimeUpgrade } from './realtime/realtime-upgrade'
import type { Guard } from './telemetry/request-tracer'
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
  logger: Logger
}

export async function startSvc(options: StartOptions): Promise<SvcServer> {
  const { env, logger } = options
  // A broken tokens.toml at start: refuse, naming file and line, rather than run with no tokens
  // (while running, the last good tokens stay in force instead).
  const tokensProblem = await checkTokensFile(env.paths.configDir)
  if (tokensProblem) throw new Error(`${tokensProblem}; fix it and start svc again (svc never rewrites it)`)
  const metrics = createMetrics()
  const wiring = await createWiring({ env, logger, metrics })
  const app = createApp({
    version: SVC_VERSION,
    startedAt: Date.now(),
    paths: env.paths,
    metrics,
    logger,
    maxStreams: env.maxStreams,
    ...wiring.deps,
  })
  // The raw inference path gets the same check as the app (same verifier, cache and throttle).
  // Then the quota check (memory only), which also notes who the request counts for.
  const authenticate = createAuthenticator(wiring.deps.auth)
  const admit = wiring.usage?.gate.admit
  // With traces on, the guard's time is the request's `auth` span.
  const timed = (g: Guard): Guard => wiring.tracing?.timeGuard(g) ?? g
  const guard = env.authEnabled ? { guard: timed(authGuard(authenticate, admit ? { admit } : {})) } : {}
  const cors = createCors(env.corsOrigins)
  // Before everything, every route: a Host svc does not answer to is DNS rebinding or a mistake.
  const refuse = hostGuard(createHostRule({ allowed: env.allowedHosts, machine: thisMachineHostnames }), {
    trusts: createProxyTrust({ trustedProxies: env.trustedProxies, proxySecret: env.proxySecret }),
    secretSet: env.proxySecret !== undefined,
  })
  const ollama = createOllamaHandler({
    call: wiring.dispatcher.call,
    authenticate,
    queueTimeoutMs: env.queueTimeoutMs,
    ...(env.authEnabled && admit ? { admit } : {}),
    slots: wiring.deps.slots,
    startedAt: Date.now(),
    ...(wiring.deps.pulls ? { pulls: wiring.deps.pulls } : {}),
    ...(wiring.deps.upstreamRefs ? { upstreamRefs: wiring.deps.upstreamRefs } : {}),
    ...(wiring.deps.presets ? { presets: wiring.deps.presets } : {}),
  })
  const server = newServer()
  const handler = createHttpHandler({ app, dispatcher: wiring.dispatcher, cors, refuse, ollama, ...guard })
  const { url } = await serveHttp(server, {
    port: env.port,
    host: env.host,
    maxConnections: env.maxConnections,
    handler,
    onClientError: answerClientError,
    onUpgrade: realtimeUpgrade(server, { env, authenticate, refuse, logger }),
  })
  const ollamaServer = env.ollamaPort === undefined ? undefined : newServer()
  if (ollamaServer) {
    const ollamaListening = await serveHttp(ollamaServer, {
      port: env.ollamaPort!,
      host: env.host,
      maxConnections: env.maxConnections,
      handler: createOllamaListener(ollama, refuse),
      onClientError: answerClientError,
    })
    logger.info('svc ollama API listening', { url: ollamaListening.url })
  }
  logger.info('svc listening', {
    url,
    version: SVC_VERSION,
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
        ollamaServer?.close()
        ollamaServer?.closeAllConnections()
        await closeHttp(server, { graceMs: env.drainMs })
        await wiring.stop()
      })()
      return stopping
    },
  }
}
