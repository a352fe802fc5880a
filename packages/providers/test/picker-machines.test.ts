import { chmod, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { SvcError } from '@svc/core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createLlmProvider } from '../src/llm/llm-provider'
import { createImageManifest, type ImageEntry } from '../src/manifest/manifest'
import { createNpuProvider } from '../src/npu/npu-provider'
import { assertBackend, memoryShortfall, type ProviderDescriptor } from '../src/picker/decide'
import { detectHardware } from '../src/picker/detect'
import { buildHardwareReport, createPicker, describeProvider } from '../src/picker/picker'

const digest = (c: string) => `sha256:${c.repeat(64)}`
const entry = (e: Partial<ImageEntry> & Pick<ImageEntry, 'provider' | 'repository'>): ImageEntry => ({
  tag: 'v1',
  digest: '',
  ...e,
})
const MANIFEST = createImageManifest(
  {
    'llama-vulkan-radv': entry({
      provider: 'llm',
      backend: 'vulkan',
      repository: 'docker.io/kyuz0/amd-strix-halo-toolboxes',
      digest: digest('1'),
      gpu_vendor: 'amd',
    }),
    'llama-rocm': entry({
      provider: 'llm',
      backend: 'rocm',
      repository: 'docker.io/kyuz0/amd-strix-halo-toolboxes',
      digest: digest('2'),
      gpu_vendor: 'amd',
    }),
    'comfyui-rocm': entry({
      provider: 'image',
      backend: 'rocm',
      repository: 'docker.io/kyuz0/amd-strix-halo-comfyui',
      digest: digest('3'),
      gpu_vendor: 'amd',
    }),
    'flm-npu': entry({
      provider: 'npu',
      backend: 'npu',
      repository: 'localhost/svc-flm',
      source: 'local',
      digest: digest('4'),
    }),
  },
  'images.toml',
)

const PROVIDERS: ProviderDescriptor[] = [
  describeProvider(createLlmProvider()),
  {
    kind: 'image',
    backends: ['rocm', 'cuda', 'cpu'],
    image: (b) => (b === 'rocm' ? 'comfyui-rocm' : undefined),
  },
  describeProvider(createNpuProvider()),
]

/** Writes a machine as a file tree: paths ending in / are directories, others files with content. */
async function machine(files: Record<string, string>): Promise<string> {
  const root = await mkdtemp(join(tmpdir(), 'svc-machine-'))
  for (const [path, content] of Object.entries(files)) {
    const full = join(root, path)
    if (path.endsWith('/')) await mkdir(full, { recursive: true })
    else {
      await mkdir(dirname(full), { recursive: true })
      await writeFile(full, content)
    }
  }
  return root
}

const meminfo = (gb: number) => `MemTotal:       ${gb * 1024 * 1024} kB\nMemFree:        1000 kB\n`
const honoured = (verdicts: Record<string, { ok: boolean } | undefined> | undefined) =>
  Object.entries(verdicts ?? {})
    .filter(([, v]) => v?.ok)
    .map(([b]) => b)

describe('the picker on three machines', () => {
  const roots: string[] = []
  let fakeLlama: string
  beforeAll(async () => {
    const bin = await machine({ 'bin/llama-server': '#!/bin/sh\n' })
    roots.push(bin)
    fakeLlama = join(bin, 'bin/llama-server')
    await chmod(fakeLlama, 0o755)
  })
  afterAll(async () => {
    for (const r of roots) await rm(r, { recursive: true, force: true })
  })
  const detect = async (
    files: Record<string, string>,
    opts: { engine: boolean; devices?: string; images?: string[]; llama?: boolean },
  ) => {
    const root = await machine(files)
    roots.push(root)
    return detectHardware({
      root,
      env: {
        PATH: '',
        SVC_CACHE_DIR: join(root, 'no-cache'),
        ...(opts.llama ? { SVC_LLAMA_SERVER: fakeLlama } : {}),
      },
      manifest: MANIFEST,
      probeEngine: async () =>
        opts.engine ? { ok: true, version: '27.0 (API 1.47)' } : { ok: false, error: 'connect ENOENT' },
      listImages: async () => ({ ids: new Set(opts.images ?? []), repoDigests: new Set() }),
      listDevices: async () => `Available devices:\n${opts.devices ?? '  (none)'}\n`,
    })
  }

  it('Strix Halo (Vulkan + ROCm + NPU, the FLM image built): llm on vulkan/rocm/cpu, images on rocm, npu', async () => {
    const facts = await detect(
      {
        'dev/dri/renderD128': '',
        'sys/class/drm/renderD128/device/vendor': '0x1002\n',
        'dev/kfd': '',
        'dev/accel/accel0': '',
        'sys/module/amdxdna/': '',
        'proc/meminfo': meminfo(128),
      },
      {
        engine: true,
        llama: true,
        devices: '  Vulkan0: AMD Radeon 8060S Graphics (RADV GFX1151)',
        images: [digest('4')],
      },
    )
    expect(facts.vulkan.renderNodes).toEqual([{ path: '/dev/dri/renderD128', vendor: 'amd' }])
    expect(facts).toMatchObject({
      rocm: { kfd: true },
      npu: { device: true, driver: true },
      memory: { totalGb: 128 },
    })
    expect(facts.images['flm-npu']).toEqual({ pinned: true, present: true })

    const report = buildHardwareReport(facts, MANIFEST, PROVIDERS)
    expect(honoured(report.providers.llm)).toEqual(['vulkan', 'rocm', 'cpu'])
    expect(report.providers.llm?.vulkan).toMatchObject({ ok: true, runtimes: ['container', 'process'] })
    // swarm is offered only by a swarm manager
    expect(report.providers.llm?.vulkan).toMatchObject({
      unavailable: { swarm: expect.stringContaining('not a swarm manager (swarm: inactive)') },
    })
    expect(report.providers.llm?.rocm).toMatchObject({ ok: true, runtimes: ['container'] })
    expect(report.providers.llm?.cpu).toMatchObject({ ok: true, runtimes: ['process'] })
    expect(report.providers.llm?.cuda).toEqual({
      ok: false,
      reason: expect.stringContaining('no NVIDIA GPU'),
    })
    expect(honoured(report.providers.image)).toEqual(['rocm'])
    expect(report.providers.npu?.npu).toMatchObject({ ok: true, runtimes: ['container'] })
    expect(report.defaults).toEqual({ llm: 'vulkan', image: 'rocm', npu: 'npu' })
  })

  it('Strix Halo without the FLM image built does not advertise the NPU', async () => {
    const facts = await detect(
      { 'dev/accel/accel0': '', 'proc/modules': 'amdgpu 1 0 - Live\namdxdna 2 0 - Live 0x0\n' },
      { engine: true },
    )
    expect(facts.npu).toEqual({ device: true, driver: true })
    const report = buildHardwareReport(facts, MANIFEST, PROVIDERS)
    expect(report.providers.npu?.npu).toEqual({
      ok: false,
      reason: expect.stringMatching(/flm-npu.*not built on this machine/),
    })
    expect(report.defaults.npu).toBeNull()
  })

  it('a CPU-only box: llm on cpu through the host llama-server, nothing else', async () => {
    const facts = await detect({ 'proc/meminfo': meminfo(16) }, { engine: false, llama: true })
    const report = buildHardwareReport(facts, MANIFEST, PROVIDERS)
    expect(honoured(report.providers.llm)).toEqual(['cpu'])
    expect(report.providers.llm?.vulkan).toEqual({
      ok: false,
      reason: 'no GPU render node (/dev/dri/renderD*)',
    })
    expect(report.providers.llm?.rocm).toEqual({ ok: false, reason: 'no /dev/kfd (AMD ROCm compute device)' })
    expect(honoured(report.providers.image)).toEqual([]) // no engine, and the image provider has no host program
    expect(report.providers.image?.cpu).toEqual({
      ok: false,
      reason: expect.stringContaining('nothing can run it here'),
    })
    expect(report.providers.npu?.npu).toEqual({ ok: false, reason: 'no /dev/accel/accel0 (AMD XDNA NPU)' })
    expect(report.defaults).toEqual({ llm: 'cpu', image: null, npu: null })
    expect(memoryShortfall({ id: 'flux-schnell', minVramGb: 24 }, facts)).toBe(
      'model "flux-schnell" needs at least 24 GB of memory; this machine has 16 GB',
    )
    expect(memoryShortfall({ id: 'sdxl-turbo', minVramGb: 8 }, facts)).toBeUndefined()
  })

  it('an NVIDIA box: llm on cuda and cpu; the AMD toolboxes are not offered for its render node', async () => {
    const facts = await detect(
      {
        'dev/nvidia0': '',
        'dev/nvidiactl': '',
        'dev/dri/renderD128': '',
        'sys/class/drm/renderD128/device/vendor': '0x10de\n',
        'proc/driver/nvidia/version': 'NVRM version: NVIDIA UNIX x86_64 Kernel Module  560.35.03\n',
        'proc/meminfo': meminfo(64),
      },
      { engine: true, llama: true, devices: '  CUDA0: NVIDIA GeForce RTX 4090, compute capability 8.9' },
    )
    expect(facts.cuda).toMatchObject({
      devices: ['/dev/nvidia0'],
      driverVersion: expect.stringContaining('560.35.03'),
    })
    const report = buildHardwareReport(facts, MANIFEST, PROVIDERS)
    expect(honoured(report.providers.llm)).toEqual(['cuda', 'cpu'])
    expect(report.providers.llm?.vulkan).toEqual({
      ok: false,
      reason: expect.stringMatching(/supports amd GPUs; found nvidia.*cannot use vulkan/),
    })
    expect(report.providers.llm?.cuda).toMatchObject({ ok: true, runtimes: ['process'] })
    expect(honoured(report.providers.image)).toEqual([])
    expect(report.defaults.llm).toBe('cuda')
  })
})

describe('assertBackend and the picker', () => {
  it('refuses with backend.unavailable (409) and the reason; remote runtimes are never refused', async () => {
    const facts = await detectHardware({
      root: '/nonexistent-machine',
      env: { PATH: '', SVC_CACHE_DIR: '/nonexistent-cache' },
      manifest: MANIFEST,
      probeEngine: async () => ({ ok: true }),
      listImages: async () => ({ ids: new Set(), repoDigests: new Set() }),
    })
    const report = buildHardwareReport(facts, MANIFEST, PROVIDERS)
    const refusal = (() => {
      try {
        assertBackend(report.providers, 'llm', 'rocm')
      } catch (e) {
        return e
      }
    })()
    expect(refusal).toBeInstanceOf(SvcError)
    expect(refusal).toMatchObject({
      code: 'backend.unavailable',
      status: 409,
      message: expect.stringContaining('no /dev/kfd'),
    })
    expect(() => assertBackend(report.providers, 'llm', 'rocm', 'remote')).not.toThrow()
    expect(() => assertBackend(report.providers, 'llm', 'npu')).toThrow(/llm has no backend "npu"/)
  })

  it('reuses one detection for its TTL and detects again after it', async () => {
    let now = 0
    let detections = 0
    const picker = createPicker({
      detect: async () => {
        detections++
        return detectHardware({
          root: '/nonexistent-machine',
          env: { PATH: '', SVC_CACHE_DIR: '/nonexistent-cache' },
          probeEngine: async () => ({ ok: false }),
        })
      },
      providers: PROVIDERS,
      ttlMs: 1000,
      clock: () => now,
    })
    await picker.report()
    await picker.assertBackend('llm', 'vulkan', 'remote')
    expect(detections).toBe(1)
    now = 1500
    await expect(picker.chooseBackend('llm')).rejects.toThrow(/no backend of llm can be honoured here/)
    expect(detections).toBe(2)
    await expect(picker.assertModelFits({ id: 'flux-schnell', minVramGb: 24 })).resolves.toBeUndefined() // memory unknown
  })

  it('detects this machine for real without throwing', async () => {
    const facts = await detectHardware({ env: process.env })
    expect(facts.memory.totalGb).toBeGreaterThan(0)
    if (facts.engines['llama-server']) expect(facts.engines['llama-server'].backends).toContain('cpu')
  })
})
