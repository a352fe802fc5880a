import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { deviceFor, memoryDevices, parseDeviceGb, unknownDevices } from '../src/memory/devices'
import type { HardwareFacts } from '../src/picker/detect'
import { detectGpuMemory, parseNvidiaSmi } from '../src/picker/gpu-memory'
import { parseDrmMemory, processMemoryUse } from '../src/runtimes/process-memory'

const GiB = 1024 ** 3
const roots: string[] = []
afterAll(async () => {
  for (const r of roots) await rm(r, { recursive: true, force: true })
})

async function tree(files: Record<string, string>): Promise<string> {
  const root = await mkdtemp(join(tmpdir(), 'svc-mem-'))
  roots.push(root)
  for (const [path, content] of Object.entries(files)) {
    await mkdir(dirname(join(root, path)), { recursive: true })
    await writeFile(join(root, path), content)
  }
  return root
}

const facts = (gpus: HardwareFacts['gpus'], totalGb = 128): HardwareFacts =>
  ({ memory: { totalGb, totalBytes: totalGb * GiB }, gpus }) as HardwareFacts

describe('memory devices', () => {
  it('sees a Strix Halo APU as one unified pool, sized by system memory', async () => {
    const root = await tree({
      'sys/class/drm/renderD128/device/mem_info_vram_total': `${512 * 1024 ** 2}\n`,
      'sys/class/drm/renderD128/device/mem_info_gtt_total': `${100 * GiB}\n`,
    })
    const gpus = await detectGpuMemory({
      at: (p) => join(root, p),
      renderNodes: [{ path: '/dev/dri/renderD128', vendor: 'amd' }],
      nvidiaSmi: null,
    })
    expect(gpus).toEqual([
      expect.objectContaining({
        vendor: 'amd',
        vramBytes: 512 * 1024 ** 2,
        gttBytes: 100 * GiB,
        integrated: true,
      }),
    ])
    const devices = memoryDevices(facts(gpus))
    expect(devices).toEqual([
      {
        id: 'ram',
        kind: 'unified',
        label: 'unified memory (CPU, integrated GPU, NPU)',
        backends: ['cpu', 'npu', 'vulkan', 'rocm'],
        totalBytes: 128 * GiB,
        reserveBytes: 4 * GiB,
        budgetBytes: 124 * GiB,
        overridden: false,
      },
    ])
    expect(deviceFor(devices, 'rocm')?.id).toBe('ram')
  })

  it('gives a discrete GPU its own budget and keeps CPU slots in system memory', () => {
    const gpus = parseNvidiaSmi('0, NVIDIA GeForce RTX 4090, 24564\n')
    const devices = memoryDevices(facts(gpus, 64))
    expect(devices.map((d) => [d.id, d.kind, d.budgetBytes])).toEqual([
      ['gpu0', 'vram', 24564 * 1024 ** 2 - 0.5 * GiB],
      ['ram', 'system', 60 * GiB],
    ])
    expect(devices[0]?.label).toBe('NVIDIA GPU 0 (NVIDIA GeForce RTX 4090)')
    expect(deviceFor(devices, 'cuda')?.id).toBe('gpu0')
    expect(deviceFor(devices, 'cpu')?.id).toBe('ram')
  })

  it('applies SVC_MEMORY_RESERVE_GB and per-device SVC_MEMORY_BUDGET_GB overrides', () => {
    const reserveGb = parseDeviceGb('SVC_MEMORY_RESERVE_GB', '2, gpu0=1')
    const budgetGb = parseDeviceGb('SVC_MEMORY_BUDGET_GB', 'ram=0.05')
    const devices = memoryDevices(facts(parseNvidiaSmi('0, X, 8192')), { reserveGb, budgetGb })
    expect(devices.map((d) => [d.id, d.reserveBytes, d.budgetBytes, d.overridden])).toEqual([
      ['gpu0', 1 * GiB, 7 * GiB, false],
      ['ram', 2 * GiB, Math.round(0.05 * GiB), true],
    ])
    expect(unknownDevices(devices, reserveGb, parseDeviceGb('x', 'gpu7=1'))).toEqual(['gpu7'])
  })

  it('keeps at most a quarter of a small box in reserve by default, and refuses nothing of unknown size', () => {
    expect(memoryDevices(facts([], 8))[0]?.reserveBytes).toBe(2 * GiB)
    const unknown = memoryDevices({ memory: { totalGb: null } } as HardwareFacts)
    expect(unknown[0]?.budgetBytes).toBeNull()
  })

  it('refuses a malformed setting with the variable and an example', () => {
    expect(() => parseDeviceGb('SVC_MEMORY_BUDGET_GB', 'lots')).toThrow(
      'SVC_MEMORY_BUDGET_GB must be a number of GB or device=GB pairs (e.g. "4" or "ram=8,gpu0=20"), got "lots"',
    )
  })
})

describe('real memory use of a process', () => {
  it('is the RSS plus the GPU buffers of each DRM client, counted once', async () => {
    const client =
      'pos:\t0\ndrm-driver:\tamdgpu\ndrm-client-id:\t7\ndrm-memory-vram:\t1024 KiB\ndrm-memory-gtt:\t2 MiB\n'
    const root = await tree({
      '42/status': 'Name:\tllama-server\nVmRSS:\t  2048 kB\n',
      '42/fdinfo/5': client,
      '42/fdinfo/6': client, // the same client through a second fd
      '42/fdinfo/0': 'pos:\t0\nflags:\t02\n',
    })
    expect(await processMemoryUse(42, root)).toEqual({
      bytes: 2048 * 1024 + 3 * 1024 ** 2,
      by: 'gpu',
      parts: { host: 2048 * 1024, gpu: 3 * 1024 ** 2 },
    })
    expect(await processMemoryUse(43, root)).toBeUndefined()
  })

  it('reads this very process from /proc', async () => {
    const own = await processMemoryUse(process.pid)
    expect(own?.by).toBe('rss')
    expect(own?.bytes).toBeGreaterThan(1024 ** 2)
  })

  it('parses the newer drm-total spelling too', () => {
    expect(parseDrmMemory('drm-total-vram0:\t4 MiB\n')).toBe(4 * 1024 ** 2)
  })
})
