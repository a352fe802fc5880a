import { accessSync, constants, statSync } from 'node:fs'
import { delimiter, join } from 'node:path'

/** The first executable `name` on PATH (plus the sbin directories root's tools live in), or undefined. */
export function findOnPath(name: string, path = process.env.PATH ?? ''): string | undefined {
  const dirs = [...path.split(delimiter), '/usr/local/sbin', '/usr/sbin', '/sbin']
  for (const dir of dirs) {
    if (!dir) continue
    const candidate = join(dir, name)
    try {
      accessSync(candidate, constants.X_OK)
      if (statSync(candidate).isFile()) return candidate
    } catch {
      // keep looking
    }
  }
  return undefined
}
