/** The environment a test or a bench gives svc's own commands (`svc serve`, `pnpm start`). */
import { join } from 'node:path'

/**
 * The variables that put svc's servers (the API and the chat app) on 127.0.0.1 with a port the system
 * picks, and their config and state under `dir` (`dir/config`, `dir/state`): nothing of the user's
 * own svc is read or touched, and runs side by side do not collide on a port.
 */
export function loopbackEnv(dir: string) {
  return {
    SVC_HOST: '127.0.0.1',
    SVC_PORT: '0',
    SVC_CHAT_HOST: '127.0.0.1',
    SVC_CHAT_PORT: '0',
    SVC_CONFIG_DIR: join(dir, 'config'),
    SVC_STATE_DIR: join(dir, 'state'),
  }
}
