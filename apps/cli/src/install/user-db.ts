import { readFileSync } from 'node:fs'
import { join } from 'node:path'

/** Users and groups of a system root, read from its `/etc/passwd` and `/etc/group`. */
export interface UserDb {
  uid(user: string): number | undefined
  gid(group: string): number | undefined
  home(user: string): string | undefined
}

function readTable(path: string): string[][] {
  try {
    return readFileSync(path, 'utf8')
      .split('\n')
      .filter((l) => l && !l.startsWith('#'))
      .map((l) => l.split(':'))
  } catch {
    return []
  }
}

/**
 * Reads `<root>/etc/passwd` and `<root>/etc/group` now (call again after creating a user). The files,
 * not NSS: with `--root` the staging root's accounts count, not this machine's.
 */
export function readUserDb(root: string): UserDb {
  const passwd = readTable(join(root, 'etc/passwd'))
  const group = readTable(join(root, 'etc/group'))
  const num = (v: string | undefined) => (v !== undefined && /^\d+$/.test(v) ? Number(v) : undefined)
  return {
    uid: (user) => num(passwd.find((f) => f[0] === user)?.[2]),
    gid: (name) => num(group.find((f) => f[0] === name)?.[2]),
    home: (user) => passwd.find((f) => f[0] === user)?.[5],
  }
}
