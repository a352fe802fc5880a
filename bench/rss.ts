/** Resident memory of processes, from /proc (Linux): what `ps` calls RSS. */
import { readdirSync, readFileSync } from 'node:fs'

/** VmRSS of `pid` in KiB; 0 when the process is gone. */
export function rssKb(pid: number): number {
  try {
    const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))
    return m ? Number(m[1]) : 0
  } catch {
    return 0
  }
}

/**
 * RSS of `pid` split (KiB): `anon` is the process's own memory (heap, stacks, JIT code); `file` is
 * mapped files (the node binary, native addons), pages another process mapping the same file shares.
 */
export function rssSplitKb(pid: number): { anon: number; file: number } {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8')
    const kb = (field: string) => Number(new RegExp(`${field}:\\s+(\\d+) kB`).exec(status)?.[1] ?? 0)
    return { anon: kb('RssAnon'), file: kb('RssFile') + kb('RssShmem') }
  } catch {
    return { anon: 0, file: 0 }
  }
}

/**
 * Proportional set size of `pid` in KiB (0 when it is gone): its RSS with each shared page (the node
 * binary's, mapped by every node process) divided among the processes that map it. Summed over
 * processes it counts shared pages once, where summed RSS counts them in each.
 */
export function pssKb(pid: number): number {
  try {
    const m = /^Pss:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8'))
    return m ? Number(m[1]) : 0
  } catch {
    return 0
  }
}

/** `pid` and every process below it. */
export function processTree(pid: number): number[] {
  const children = new Map<number, number[]>()
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8')
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1])
      children.set(ppid, [...(children.get(ppid) ?? []), Number(entry)])
    } catch {
      // exited while we looked
    }
  }
  const out: number[] = []
  const walk = (p: number) => {
    out.push(p)
    for (const c of children.get(p) ?? []) walk(c)
  }
  walk(pid)
  return out
}

/** The command line of `pid` (empty when it is gone). */
export function commandLine(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').join(' ').trim()
  } catch {
    return ''
  }
}

/** CPU time `pid` has used so far (user + system, ms; clock ticks of 10 ms), 0 when it is gone. */
export function cpuMs(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
    // after the command: state(0) ppid … utime(11) stime(12), in USER_HZ (100 on Linux)
    return (Number(f[11]) + Number(f[12])) * 10
  } catch {
    return 0
  }
}

/**
 * CPU time the main thread of `pid` has used so far (ns, from /proc/<pid>/schedstat: the thread
 * group leader only), 0 when it is gone. For a Node server that is its event loop, the thread that
 * bounds its req/s; the garbage collector's helpers and libuv's pool are other threads.
 */
export function mainThreadCpuNs(pid: number): number {
  try {
    return Number(readFileSync(`/proc/${pid}/schedstat`, 'utf8').split(' ')[0])
  } catch {
    return 0
  }
}
