/**
 * The svc server entry: the only place that reads the environment. Listens on SVC_HOST:SVC_PORT; on
 * SIGTERM/SIGINT stops accepting, drains in-flight requests for up to SVC_DRAIN_SECONDS, stops every
 * upstream it started, and exits 0.
 */

import { createLogger, stopOnSignals } from '@svc/core/node'
import { readServeEnv, type ServeEnv } from './env'
import { startSvc } from './server'

async function main(): Promise<void> {
  let env: ServeEnv
  try {
    env = readServeEnv(process.env)
  } catch (error) {
    process.stderr.write(`svc: ${(error as Error).message}\n`)
    process.exit(2)
  }
  const logger = createLogger({ level: env.logLevel })
  let svc: Awaited<ReturnType<typeof startSvc>>
  try {
    svc = await startSvc({ env, logger })
  } catch (error) {
    logger.error('cannot start', { host: env.host, port: env.port, error })
    process.exit(1)
  }
  stopOnSignals(() => svc.stop(), logger)
}

void main()
