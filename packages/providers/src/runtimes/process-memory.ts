/**
 * What a host process really uses in memory: its resident set (`VmRSS` in /proc/<pid>/status) plus
 * the GPU buffers the kernel's DRM drivers account to it (`drm-memory-*` lines in
 * /proc/<pid>/fdinfo/*, per DRM client; see the kernel's drm-usage-stats). RSS alone misses what a
 * Vulkan or ROCm upstream keeps in VRAM or GTT, which on an APU is system memory too.
 */
import { readdir, readFile } from 'node:fs/promises'
import { join } from 'node:path'
import type { MemoryUse } from '@svc/core'

/** Undefined when the process is gone or /proc cannot be read. Never throws. */
export async function processMemoryUse(pid: number, proc = '/proc'): Promise<MemoryUse | undefined> {
  const status = await readFile(join(proc, String(pid), 'status'), 'utf8').catch(() => undefined)
  const rssKb = status?.match(/^VmRSS:\s+(\d+)\s+kB/m)?.[1]
  if (rssKb === undefined) return undefined
  const host = Number(rssKb) * 1024
  const gpu = await drmMemory(join(proc, String(pid), 'fdinfo'))
  if (gpu === 0) return { bytes: host, by: 'rss' }
  return { bytes: host + gpu, by: 'gpu', parts: { host, gpu } }
}

/** Sums `drm-memory-<region>` (or newer `drm-total-<region>`) over the distinct DRM clients. */
async function drmMemory(fdinfo: string): Promise<number> {
  const fds = await readdir(fdinfo).catch(() => [] as string[])
  const clients = new Map<string, number>()
  for (const fd of fds) {
    const text = await readFile(join(fdinfo, fd), 'utf8').catch(() => '')
    const client = /^drm-client-id:\s*(\d+)/m.exec(text)?.[1]
    if (!client || clients.has(client)) continue
    clients.set(client, parseDrmMemory(text))
  }
  let total = 0
  for (const bytes of clients.values()) total += bytes
  return total
}

/** One fdinfo text → bytes of VRAM and GTT it holds (`drm-memory-vram: 1024 KiB`). */
export function parseDrmMemory(text: string): number {
  const units: Record<string, number> = { '': 1, KiB: 1024, MiB: 1024 ** 2, GiB: 1024 ** 3 }
  const sums = { memory: 0, total: 0 }
  for (const m of text.matchAll(/^drm-(memory|total)-(vram|gtt)[^:]*:\s*(\d+)\s*(KiB|MiB|GiB)?/gm)) {
    sums[m[1] as 'memory' | 'total'] += Number(m[3]) * (units[m[4] ?? ''] ?? 1)
  }
  return sums.memory || sums.total // drivers report one spelling or the other
}
