import { findOnPath as onPath } from '@svc/engines'
import { testEnv } from './test-env'

/** The first executable `name` on PATH (plus the sbin directories root's tools live in), or undefined. */
export function findOnPath(name: string, path = testEnv.path): string | undefined {
  return onPath(name, path, ['/usr/local/sbin', '/usr/sbin', '/sbin'])
}
