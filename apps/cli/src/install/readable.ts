import { statSync } from 'node:fs'
import { dirname } from 'node:path'

/**
 * Whether a user who is neither the owner nor in the group could read `path`: every directory on
 * the way may be entered (o+x) and the path itself read (o+r). Used to warn before a service user
 * is pointed at a checkout under a private home directory.
 */
export function readableByOthers(path: string): boolean {
  try {
    if ((statSync(path).mode & 0o004) === 0) return false
    for (let dir = dirname(path); ; dir = dirname(dir)) {
      if ((statSync(dir).mode & 0o001) === 0) return false
      if (dir === dirname(dir)) return true
    }
  } catch {
    return false
  }
}
