/**
 * The svc server entry: the only place that reads the environment and wires packages together.
 * Listens on SVC_HOST:SVC_PORT; on SIGTERM/SIGINT stops accepting, drains in-flight requests for up
 * to SVC_DRAIN_SECONDS, stops what it started, and exits 0.
 */
import type { Server } from 'node:http'
import { serve } from '@hono/node-server'
import { createApp } from './app'
import { readServeEnv } from './env'
import { createLogger } from './logger'
import { createMetrics } from './metrics'
import { VERSION } from './version'
import { createWiring } from './wiring'

async function main(): Promise<void> {
  let env: ReturnType<typeof readServeEnv>
  try {
    env = readServeEnv(process.env)
  } catch (error) {
    process.stderr.write(`svc: ${(error as Error).message}\n`)
    process.exit(2)
  }
  const logger = createLogger({ level: env.logLevel })
  const metrics = createMetrics()
  const wiring = await createWiring({ env, logger, metrics, rawEnv: process.env })
  const app = createApp({
    version: VERSION,
    startedAt: Date.now(),
    paths: env.paths,
    auth: { enabled: env.authEnabled },
    metrics,
    logger,
    ...wiring.deps,
  })

  const server = serve({ fetch: app.fetch, hostname: env.host, port: env.port }, (info) => {
    logger.info('svc listening', {
      url: `http://${info.address.includes(':') ? `[${info.address}]` : info.address}:${info.port}`,
      version: VERSION,
      configDir: env.paths.configDir,
      stateDir: env.paths.stateDir,
      auth: env.authEnabled,
    })
  }) as Server
  server.on('error', (error) => {
    logger.error('cannot listen', { host: env.host, port: env.port, error })
    process.exit(1)
  })
  // Recovery and default loads run in the background: the API answers (and reports progress) at once.
  void wiring.start().catch((error) => logger.error('startup loads failed', { error }))

  let stopping = false
  const stop = async (signal: string) => {
    if (stopping) return
    stopping = true
    logger.info('stopping', { signal })
    const closed = new Promise<void>((resolve) => server.close(() => resolve()))
    server.closeIdleConnections()
    const timer = setTimeout(() => server.closeAllConnections(), env.drainMs)
    await closed
    clearTimeout(timer)
    await wiring.stop()
    logger.info('stopped')
    process.exit(0)
  }
  process.on('SIGTERM', () => void stop('SIGTERM'))
  process.on('SIGINT', () => void stop('SIGINT'))
}

void main()
