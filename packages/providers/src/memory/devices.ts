/**
 * The memory budget's devices: each pool of memory slots load into, its detected size, the
 * reserve kept free, and the budget loads are checked against.
 *
 * - `ram`: system memory. CPU and NPU slots load here (the XDNA NPU has no memory of its own), and so
 *   do GPU slots on an integrated GPU (an APU like Strix Halo): then its kind is `unified`.
 * - `gpu0`, `gpu1`, …: discrete GPUs (and APUs with a large BIOS carve-out), each with its own VRAM.
 *
 * GB in the settings means GiB (2^30 bytes), as /proc/meminfo and GPU tools count.
 */
import type { Backend } from '@svc/core'
import type { HardwareFacts } from '../picker/detect'
import type { GpuFact } from '../picker/gpu-memory'

export interface MemoryDevice {
  id: string
  kind: 'system' | 'unified' | 'vram'
  label: string
  /** Slot backends whose loads are charged here. */
  backends: Backend[]
  totalBytes: number | null
  reserveBytes: number
  /** Null: no size known and no override, so nothing is refused. */
  budgetBytes: number | null
  /** The budget came from `SVC_MEMORY_BUDGET_GB`. */
  overridden: boolean
}

/** A setting per device: `4` (every device), `ram=8,gpu0=20`, or `2,gpu0=0.5` (default, then overrides). */
export interface DeviceGb {
  all?: number
  byDevice: Record<string, number>
}

const GiB = 1024 ** 3
/** Kept free when `SVC_MEMORY_RESERVE_GB` says nothing: the OS, svc itself, page cache for model files. */
export const DEFAULT_RESERVE_GB = { ram: 4, vram: 0.5 } as const

/** Parses `SVC_MEMORY_RESERVE_GB` / `SVC_MEMORY_BUDGET_GB`; throws an Error fit for a person. */
export function parseDeviceGb(name: string, value: string | undefined): DeviceGb {
  const spec: DeviceGb = { byDevice: {} }
  if (value === undefined || value.trim() === '') return spec
  for (const part of value.split(',').map((p) => p.trim())) {
    const m = /^(?:([a-z][a-z0-9]*)\s*=\s*)?(\d+(?:\.\d+)?)$/.exec(part)
    if (!m) {
      throw new Error(
        `${name} must be a number of GB or device=GB pairs (e.g. "4" or "ram=8,gpu0=20"), got "${value}"`,
      )
    }
    const gb = Number(m[2])
    if (m[1]) spec.byDevice[m[1]] = gb
    else spec.all = gb
  }
  return spec
}

export interface MemoryDeviceOptions {
  reserveGb?: DeviceGb
  budgetGb?: DeviceGb
}

/** The devices of a machine, with reserves and budgets applied. Pure. */
export function memoryDevices(facts: HardwareFacts, options: MemoryDeviceOptions = {}): MemoryDevice[] {
  const gpus = facts.gpus ?? []
  const integrated = gpus.filter((g) => g.integrated)
  const ramBackends: Backend[] = ['cpu', 'npu']
  for (const gpu of integrated)
    for (const b of gpuBackends(gpu)) if (!ramBackends.includes(b)) ramBackends.push(b)
  const devices: Omit<MemoryDevice, 'reserveBytes' | 'budgetBytes' | 'overridden'>[] = gpus
    .filter((g) => !g.integrated)
    .map((gpu, i) => ({
      id: `gpu${i}`,
      kind: 'vram',
      label: gpuLabel(gpu),
      backends: gpuBackends(gpu),
      totalBytes: gpu.vramBytes,
    }))
  devices.push({
    id: 'ram',
    kind: integrated.length ? 'unified' : 'system',
    label: integrated.length ? 'unified memory (CPU, integrated GPU, NPU)' : 'system memory',
    backends: ramBackends,
    totalBytes:
      facts.memory.totalBytes ?? (facts.memory.totalGb === null ? null : facts.memory.totalGb * GiB),
  })
  return devices.map((d) => {
    const fallback = d.kind === 'vram' ? DEFAULT_RESERVE_GB.vram : DEFAULT_RESERVE_GB.ram
    const reserveGb = options.reserveGb?.byDevice[d.id] ?? options.reserveGb?.all ?? fallback
    // A small box keeps at most a quarter of its memory in reserve by default.
    const reserveBytes =
      options.reserveGb?.byDevice[d.id] === undefined && options.reserveGb?.all === undefined && d.totalBytes
        ? Math.min(reserveGb * GiB, d.totalBytes / 4)
        : reserveGb * GiB
    const override = options.budgetGb?.byDevice[d.id] ?? options.budgetGb?.all
    const budgetBytes =
      override !== undefined
        ? Math.round(override * GiB)
        : d.totalBytes === null
          ? null
          : Math.max(0, Math.round(d.totalBytes - reserveBytes))
    return { ...d, reserveBytes: Math.round(reserveBytes), budgetBytes, overridden: override !== undefined }
  })
}

/** The device a slot on `backend` loads into: a discrete GPU that runs it, else system memory. */
export function deviceFor(devices: readonly MemoryDevice[], backend: Backend): MemoryDevice | undefined {
  return (
    devices.find((d) => d.kind === 'vram' && d.backends.includes(backend)) ??
    devices.find((d) => d.id === 'ram')
  )
}

/** Setting names that are not devices of this machine (so a typo is reported, not ignored). */
export function unknownDevices(
  devices: readonly MemoryDevice[],
  ...specs: (DeviceGb | undefined)[]
): string[] {
  const ids = new Set(devices.map((d) => d.id))
  return specs.flatMap((s) => Object.keys(s?.byDevice ?? {})).filter((id) => !ids.has(id))
}

function gpuBackends(gpu: GpuFact): Backend[] {
  if (gpu.vendor === 'amd') return ['vulkan', 'rocm']
  if (gpu.vendor === 'nvidia') return ['cuda', 'vulkan']
  return ['vulkan']
}

function gpuLabel(gpu: GpuFact): string {
  if (gpu.vendor === 'nvidia') return `NVIDIA GPU ${gpu.cudaIndex}${gpu.name ? ` (${gpu.name})` : ''}`
  const vendor = gpu.vendor === 'amd' ? 'AMD' : gpu.vendor === 'intel' ? 'Intel' : 'GPU'
  return `${vendor} GPU ${gpu.renderNode ?? ''}`.trim()
}
