/**
 * Whose is a listening port: on Linux, /proc/net/tcp{,6} name the socket inode that listens on a
 * port and /proc/<pid>/fd shows which process holds that socket. The process runtime uses it to
 * call a port its upstream's the moment the upstream listens, instead of waiting to see whether the
 * upstream dies of a bind error because another process took the port first.
 */
import { readdir, readFile, readlink } from 'node:fs/promises'

const LISTEN = '0A'

/**
 * True when process `pid` itself holds a socket listening on TCP `port`; false when it does not or
 * it cannot be told (no /proc, another user's process, a wrapper whose child listens). Never throws.
 */
export async function listensOn(pid: number, port: number): Promise<boolean> {
  const inodes = new Set<string>()
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    const text = await readFile(table, 'utf8').catch(() => '')
    for (const line of text.split('\n').slice(1)) {
      // sl local_address rem_address st tx_queue:rx_queue tr:tm->when retrnsmt uid timeout inode
      const f = line.trim().split(/\s+/)
      if (f[3] === LISTEN && Number.parseInt(f[1]?.split(':')[1] ?? '', 16) === port && f[9]) inodes.add(f[9])
    }
  }
  if (inodes.size === 0) return false
  const fds = await readdir(`/proc/${pid}/fd`).catch(() => [] as string[])
  for (const fd of fds) {
    const target = await readlink(`/proc/${pid}/fd/${fd}`).catch(() => '')
    const inode = /^socket:\[(\d+)\]$/.exec(target)?.[1]
    if (inode && inodes.has(inode)) return true
  }
  return false
}
