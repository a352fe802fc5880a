import { findOnPath as onPath } from '@svc/engines'

/** The first executable `name` on PATH (plus the sbin directories root's tools live in), or undefined. */
export function findOnPath(name: string, path = process.env.PATH ?? ''): string | undefined {
  return onPath(name, path, ['/usr/local/sbin', '/usr/sbin', '/sbin'])
}
