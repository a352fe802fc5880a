/**
 * What this machine has: GPUs (render nodes and their vendors, ROCm's /dev/kfd, NVIDIA), the AMD NPU
 * (device node and the amdxdna driver), memory, a container engine and its images, and the host
 * engines svc can run as processes. Every file is read under `root` (default `/`) and every probe
 * that talks to something is injectable, so tests present any machine as a directory tree.
 */
import { execFile } from 'node:child_process'
import { readdir, readFile, stat } from 'node:fs/promises'
import { delimiter, join } from 'node:path'
import { promisify } from 'node:util'
import type { Backend } from '@svc/core'
import { ENGINE_NAMES, type EngineName, findEngine } from '@svc/engines'
import type { GpuVendor, ImageManifest } from '../manifest/manifest'
import {
  dockerEngineProbe,
  dockerImageInventory,
  type EngineProbe,
  type ImageInventory,
  normaliseRepo,
  type SwarmRole,
} from './engine-probe'
import { detectGpuMemory, type GpuFact, type QueryNvidiaSmi } from './gpu-memory'
import type { RenderNode } from './render-node'

export type { RenderNode } from './render-node'

export interface HostEngine {
  path: string
  /** Backends the binary can use here (llama-server: from `--list-devices`; always includes cpu). */
  backends: Backend[]
}

export interface HardwareFacts {
  vulkan: { renderNodes: RenderNode[] }
  rocm: { kfd: boolean }
  cuda: { devices: string[]; driverVersion: string | null; nvidiaSmi: string | null }
  npu: { device: boolean; driver: boolean }
  /** `totalBytes` is MemTotal; `totalGb` the same rounded to 0.1 GiB. */
  memory: { totalGb: number | null; totalBytes?: number | null }
  /** GPUs and their memory (the memory budget's devices). */
  gpus?: GpuFact[]
  container: { ok: boolean; version?: string; error?: string; swarm?: SwarmRole }
  /** Per manifest entry: pinned, and present in the engine's image store. */
  images: Record<string, { pinned: boolean; present: boolean }>
  /** Host programs the process runtime can run (`llama-server`, `whisper-server`, `flm`); null = none. */
  engines: Record<string, HostEngine | null>
}

export interface DetectOptions {
  /** Prefix for /dev, /sys and /proc. Default `/`. */
  root?: string
  /** For PATH lookups and engine discovery (`SVC_LLAMA_SERVER`, cache dir): the server's environment. */
  env: Record<string, string | undefined>
  manifest?: ImageManifest
  /** Whether a container engine answers. Default: dockerode ping at `DOCKER_HOST`, 1.5 s. */
  probeEngine?: EngineProbe
  /** What images the engine holds. Default: dockerode image list. */
  listImages?: () => Promise<ImageInventory>
  /** Output of `nvidia-smi --query-gpu=…`. Default: runs it when nvidia-smi is on PATH. */
  queryNvidiaSmi?: QueryNvidiaSmi
  /** Output of `<llama-server> --list-devices`. Default: runs it (5 s limit). */
  listDevices?: (path: string) => Promise<string>
}

const VENDORS: Record<string, GpuVendor> = { '0x1002': 'amd', '0x10de': 'nvidia', '0x8086': 'intel' }

/** Detects everything in parallel. Never throws: what cannot be read counts as absent. */
export async function detectHardware(options: DetectOptions): Promise<HardwareFacts> {
  const root = options.root ?? '/'
  const env = options.env
  const at = (p: string) => join(root, p)
  const [renderNodes, kfd, cuda, npu, memory, container] = await Promise.all([
    detectRenderNodes(at),
    exists(at('dev/kfd')),
    detectCuda(at, env),
    detectNpu(at),
    readMemTotalBytes(at('proc/meminfo')),
    (options.probeEngine ?? dockerEngineProbe())(),
  ])
  const inventory = container.ok
    ? await (options.listImages ?? dockerImageInventory)().catch(() => undefined)
    : undefined
  const images: HardwareFacts['images'] = {}
  for (const [name, entry] of Object.entries(options.manifest?.entries ?? {})) {
    const pinned = entry.digest !== ''
    const present =
      pinned && inventory !== undefined
        ? entry.source === 'local'
          ? inventory.ids.has(entry.digest)
          : inventory.repoDigests.has(normaliseRepo(`${entry.repository}@${entry.digest}`))
        : false
    images[name] = { pinned, present }
  }
  return {
    vulkan: { renderNodes },
    rocm: { kfd },
    cuda,
    npu,
    memory: {
      totalGb: memory === null ? null : Math.round((memory / 1024 ** 3) * 10) / 10,
      totalBytes: memory,
    },
    gpus: await detectGpuMemory({
      at,
      renderNodes,
      nvidiaSmi: cuda.nvidiaSmi,
      ...(options.queryNvidiaSmi ? { queryNvidiaSmi: options.queryNvidiaSmi } : {}),
    }),
    container,
    images,
    engines: await detectEngines(env, options.listDevices ?? runListDevices),
  }
}

async function detectRenderNodes(at: (p: string) => string): Promise<RenderNode[]> {
  const names = (await readdir(at('dev/dri')).catch(() => [] as string[])).filter((n) =>
    /^renderD\d+$/.test(n),
  )
  return Promise.all(
    names.sort().map(async (name) => {
      const id = (await readFile(at(`sys/class/drm/${name}/device/vendor`), 'utf8').catch(() => '')).trim()
      return { path: `/dev/dri/${name}`, vendor: VENDORS[id.toLowerCase()] ?? 'unknown' }
    }),
  )
}

async function detectCuda(
  at: (p: string) => string,
  env: Record<string, string | undefined>,
): Promise<HardwareFacts['cuda']> {
  const devices = (await readdir(at('dev')).catch(() => [] as string[]))
    .filter((n) => /^nvidia\d+$/.test(n))
    .sort()
    .map((n) => `/dev/${n}`)
  const version = await readFile(at('proc/driver/nvidia/version'), 'utf8').catch(() => null)
  return {
    devices,
    driverVersion: version?.split('\n')[0]?.trim() || null,
    nvidiaSmi: await onPath('nvidia-smi', env),
  }
}

async function detectNpu(at: (p: string) => string): Promise<HardwareFacts['npu']> {
  const [device, module, modules] = await Promise.all([
    exists(at('dev/accel/accel0')),
    exists(at('sys/module/amdxdna')),
    readFile(at('proc/modules'), 'utf8').catch(() => ''),
  ])
  return { device, driver: module || /^amdxdna\s/m.test(modules) }
}

async function readMemTotalBytes(path: string): Promise<number | null> {
  const text = await readFile(path, 'utf8').catch(() => '')
  const kb = text.match(/^MemTotal:\s+(\d+)\s+kB/m)?.[1]
  return kb ? Number(kb) * 1024 : null
}

async function detectEngines(
  env: Record<string, string | undefined>,
  listDevices: (path: string) => Promise<string>,
): Promise<Record<string, HostEngine | null>> {
  const engines: Record<string, HostEngine | null> = {}
  for (const name of ENGINE_NAMES) {
    const found = findEngine(name as EngineName, env)
    if (!found) {
      engines[name] = null
      continue
    }
    const backends =
      name === 'llama-server'
        ? parseListDevices(await listDevices(found.path).catch(() => ''))
        : (['cpu'] as Backend[])
    engines[name] = { path: found.path, backends }
  }
  const flm = await onPath('flm', env)
  engines.flm = flm ? { path: flm, backends: ['npu'] } : null
  const espeak = await onPath('espeak-ng', env)
  engines['espeak-ng'] = espeak ? { path: espeak, backends: ['cpu'] } : null
  return engines
}

/** `llama-server --list-devices` → backends: `Vulkan0: …` → vulkan, `ROCm0:`/`HIP0:` → rocm, `CUDA0:` → cuda. */
export function parseListDevices(output: string): Backend[] {
  const found = new Set<Backend>()
  for (const m of output.matchAll(/^\s*(Vulkan|ROCm|HIP|CUDA)\d*\s*:/gim)) {
    const kind = (m[1] ?? '').toLowerCase()
    found.add(kind === 'vulkan' ? 'vulkan' : kind === 'cuda' ? 'cuda' : 'rocm')
  }
  return [...(['vulkan', 'rocm', 'cuda'] as const).filter((b) => found.has(b)), 'cpu']
}

async function runListDevices(path: string): Promise<string> {
  const { stdout, stderr } = await promisify(execFile)(path, ['--list-devices'], { timeout: 5_000 })
  return `${stdout}\n${stderr}`
}

async function exists(path: string): Promise<boolean> {
  return stat(path).then(
    () => true,
    () => false,
  )
}

async function onPath(name: string, env: Record<string, string | undefined>): Promise<string | null> {
  for (const dir of (env.PATH ?? '').split(delimiter)) {
    if (!dir) continue
    const info = await stat(join(dir, name)).catch(() => undefined)
    if (info?.isFile() && info.mode & 0o111) return join(dir, name)
  }
  return null
}
