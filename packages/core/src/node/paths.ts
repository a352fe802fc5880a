import { existsSync } from 'node:fs'
import { homedir } from 'node:os'
import { join } from 'node:path'

export interface SvcPaths {
  configDir: string
  stateDir: string
}

type Env = Record<string, string | undefined>

/**
 * Where svc keeps config and state (docs/operations.md, "Files"): `SVC_CONFIG_DIR` / `SVC_STATE_DIR` when set;
 * otherwise `/etc/svc` and `/var/lib/svc` when svc is installed system-wide (those directories exist);
 * otherwise the user's XDG directories. The API and the CLI use this one function, so they always
 * agree on where `tokens.toml` and the slot configs are.
 */
export function resolvePaths(env: Env, systemExists: (path: string) => boolean = existsSync): SvcPaths {
  const home = env.HOME || homedir()
  const xdgConfig = env.XDG_CONFIG_HOME || join(home, '.config')
  const xdgData = env.XDG_DATA_HOME || join(home, '.local', 'share')
  return {
    configDir: env.SVC_CONFIG_DIR || (systemExists('/etc/svc') ? '/etc/svc' : join(xdgConfig, 'svc')),
    stateDir: env.SVC_STATE_DIR || (systemExists('/var/lib/svc') ? '/var/lib/svc' : join(xdgData, 'svc')),
  }
}
