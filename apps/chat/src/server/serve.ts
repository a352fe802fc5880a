/**
 * The chat server's entry (`svc chat`, `pnpm --filter @svc/chat start`): the only place that reads the
 * environment. Listens on SVC_CHAT_HOST:SVC_CHAT_PORT; on SIGTERM/SIGINT ends running answers (kept,
 * marked interrupted), closes the database and exits 0.
 */

import { runServer } from '@svc/core/node'
import { readChatEnv } from './env'
import { startChat } from './server'

void runServer({ name: 'svc chat', environment: process.env, readEnv: readChatEnv, start: startChat })
