/**
 * The chat server's entry (`svc chat`, `pnpm --filter @svc/chat start`): the only place that reads the
 * environment. Listens on SVC_CHAT_HOST:SVC_CHAT_PORT; on SIGTERM/SIGINT ends running answers (kept,
 * marked interrupted), closes the database and exits 0.
 */

import { createLogger, stopOnSignals } from '@svc/core/node'
import { type ChatEnv, readChatEnv } from './env'
import { startChat } from './server'

async function main(): Promise<void> {
  let env: ChatEnv
  try {
    env = readChatEnv(process.env)
  } catch (error) {
    process.stderr.write(`svc chat: ${(error as Error).message}\n`)
    process.exit(2)
  }
  const logger = createLogger({ level: env.logLevel })
  const starting = startChat({ env, logger })
  stopOnSignals(starting, logger) // before it listens
  try {
    await starting
  } catch (error) {
    logger.error('cannot start', { host: env.host, port: env.port, error })
    process.exit(1)
  }
}

void main()
