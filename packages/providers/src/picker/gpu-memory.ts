/**
 * How much memory each GPU has, for the memory budget. AMD (amdgpu) and Intel (xe) report
 * it in sysfs next to the render node; NVIDIA through `nvidia-smi`. An AMD APU such as Strix Halo
 * reports only its BIOS carve-out as VRAM (often 512 MiB) and allocates from the GTT pool, which is
 * system memory: such a GPU is `integrated`, and its slots count against system memory ("unified").
 * A large carve-out (e.g. 96 GiB set in the BIOS) is memory the OS no longer sees, so a GPU whose
 * VRAM is at least `INTEGRATED_VRAM_LIMIT` counts as a device of its own.
 */
import { execFile } from 'node:child_process'
import { readFile } from 'node:fs/promises'
import { basename } from 'node:path'
import { promisify } from 'node:util'
import type { RenderNode } from './render-node'

/** VRAM below this on an AMD or Intel GPU means an integrated GPU living in system memory. */
export const INTEGRATED_VRAM_LIMIT = 4 * 1024 ** 3

export interface GpuFact {
  vendor: RenderNode['vendor']
  /** `/dev/dri/renderD128` for AMD and Intel; null for NVIDIA (known by `cudaIndex`). */
  renderNode: string | null
  cudaIndex: number | null
  name: string | null
  vramBytes: number | null
  /** AMD only: the GTT pool (system memory the GPU may map). */
  gttBytes: number | null
  integrated: boolean
}

/** Output of `nvidia-smi --query-gpu=index,name,memory.total --format=csv,noheader,nounits`. */
export type QueryNvidiaSmi = (path: string) => Promise<string>

export async function detectGpuMemory(options: {
  at: (path: string) => string
  renderNodes: readonly RenderNode[]
  nvidiaSmi: string | null
  queryNvidiaSmi?: QueryNvidiaSmi
}): Promise<GpuFact[]> {
  const sysfs = await Promise.all(
    options.renderNodes
      .filter((n) => n.vendor === 'amd' || n.vendor === 'intel')
      .map(async (node): Promise<GpuFact> => {
        const dir = options.at(`sys/class/drm/${basename(node.path)}/device`)
        const [vram, gtt] = await Promise.all([
          readBytes(`${dir}/mem_info_vram_total`),
          readBytes(`${dir}/mem_info_gtt_total`),
        ])
        return {
          vendor: node.vendor,
          renderNode: node.path,
          cudaIndex: null,
          name: null,
          vramBytes: vram,
          gttBytes: gtt,
          integrated: vram === null || vram < INTEGRATED_VRAM_LIMIT,
        }
      }),
  )
  const query = options.queryNvidiaSmi ?? runNvidiaSmi
  const smi = options.nvidiaSmi ? await query(options.nvidiaSmi).catch(() => '') : ''
  return [...sysfs, ...parseNvidiaSmi(smi)]
}

/** `0, NVIDIA GeForce RTX 4090, 24564` lines → NVIDIA GPUs (memory in MiB). */
export function parseNvidiaSmi(output: string): GpuFact[] {
  const gpus: GpuFact[] = []
  for (const line of output.split('\n')) {
    const m = /^\s*(\d+)\s*,\s*(.+?)\s*,\s*(\d+)\s*$/.exec(line)
    if (!m) continue
    gpus.push({
      vendor: 'nvidia',
      renderNode: null,
      cudaIndex: Number(m[1]),
      name: m[2] ?? null,
      vramBytes: Number(m[3]) * 1024 ** 2,
      gttBytes: null,
      integrated: false,
    })
  }
  return gpus
}

async function readBytes(path: string): Promise<number | null> {
  const text = await readFile(path, 'utf8').catch(() => '')
  const n = Number(text.trim())
  return text.trim() !== '' && Number.isFinite(n) && n >= 0 ? n : null
}

async function runNvidiaSmi(path: string): Promise<string> {
  const args = ['--query-gpu=index,name,memory.total', '--format=csv,noheader,nounits']
  const { stdout } = await promisify(execFile)(path, args, { timeout: 5_000 })
  return stdout
}
