/**
 * The picker's decision, a pure function of the detected facts, the image manifest and what each
 * provider can use: per provider and backend, whether this machine can honour it and with which
 * runtimes — or why not. It never advertises a backend that cannot be honoured: hardware present is
 * not enough, there must also be a runtime that can run it here (a pinned image and an engine that
 * answers, or a host program built with that backend).
 */
import { type Backend, type ModelEntry, type RuntimeKind, SvcError } from '@svc/core'
import type { ImageManifest } from '../manifest/manifest'
import type { HardwareFacts } from './detect'

/** What the picker needs to know about a provider (`describeProvider` builds it from a `Provider`). */
export interface ProviderDescriptor {
  kind: string
  backends: readonly Backend[]
  /** The `images.toml` entry for a backend (container runtime); undefined = no image. */
  image?(backend: Backend): string | undefined
  /** The host program the process runtime runs (`llama-server`, `whisper-server`, `flm`). */
  hostProgram?: string
}

export type BackendVerdict =
  | {
      ok: true
      /** Runtimes that can run it here, best first (container before process). */
      runtimes: RuntimeKind[]
      /** Why the other local runtimes cannot. */
      unavailable?: Partial<Record<RuntimeKind, string>>
    }
  | { ok: false; reason: string }

export type ProviderBackends = Partial<Record<Backend, BackendVerdict>>

/** Default backend order when a slot names none: the first one honoured wins. */
export const BACKEND_PREFERENCE: Readonly<Record<string, readonly Backend[]>> = {
  // Vulkan (RADV) is the most stable llama.cpp backend on Strix Halo; ROCm next; CUDA on NVIDIA.
  llm: ['vulkan', 'rocm', 'cuda', 'cpu'],
  // ComfyUI runs on PyTorch, which has ROCm and CUDA builds but no Vulkan one.
  image: ['rocm', 'cuda', 'vulkan', 'cpu'],
  npu: ['npu'],
}
export const DEFAULT_BACKEND_PREFERENCE: readonly Backend[] = ['vulkan', 'rocm', 'cuda', 'npu', 'cpu']

/** Whether the hardware (and its driver) for `backend` is here, regardless of any runtime. */
export function hardwareVerdict(
  facts: HardwareFacts,
  backend: Backend,
): { ok: true } | { ok: false; reason: string } {
  switch (backend) {
    case 'cpu':
      return { ok: true }
    case 'vulkan':
      return facts.vulkan.renderNodes.length > 0
        ? { ok: true }
        : { ok: false, reason: 'no GPU render node (/dev/dri/renderD*)' }
    case 'rocm':
      return facts.rocm.kfd ? { ok: true } : { ok: false, reason: 'no /dev/kfd (AMD ROCm compute device)' }
    case 'cuda':
      return (facts.cuda.devices.length > 0 && facts.cuda.driverVersion) || facts.cuda.nvidiaSmi
        ? { ok: true }
        : { ok: false, reason: 'no NVIDIA GPU (/dev/nvidia0 with a loaded driver, or nvidia-smi)' }
    case 'npu':
      if (!facts.npu.device) return { ok: false, reason: 'no /dev/accel/accel0 (AMD XDNA NPU)' }
      return facts.npu.driver
        ? { ok: true }
        : { ok: false, reason: 'the amdxdna kernel driver is not loaded' }
  }
}

function containerVerdict(
  facts: HardwareFacts,
  manifest: ImageManifest | undefined,
  provider: ProviderDescriptor,
  backend: Backend,
): string | undefined {
  const name = provider.image?.(backend)
  if (!name) return `no container image for ${provider.kind}/${backend}`
  const entry = manifest?.entries[name]
  if (!entry) return `image entry "${name}" is not in the manifest`
  if (!entry.digest) return `image "${name}" is not pinned (run "svc manifest pin ${name}")`
  if (!facts.container.ok) return `no container engine answers (${facts.container.error ?? 'unknown error'})`
  if (entry.source === 'local' && !facts.images[name]?.present) {
    return `image "${name}" (${entry.repository}:${entry.tag}) is not built on this machine`
  }
  if (entry.gpu_vendor && (backend === 'vulkan' || backend === 'rocm')) {
    const vendors = facts.vulkan.renderNodes.map((n) => n.vendor)
    if (!vendors.includes(entry.gpu_vendor)) {
      return `image "${name}" supports ${entry.gpu_vendor} GPUs; found ${vendors.join(', ') || 'none'}`
    }
  }
  return undefined
}

/**
 * `swarm` needs what `container` needs, an engine that is a swarm manager (only managers create
 * services), and an image other nodes can pull (a local build is on this machine only).
 */
function swarmVerdict(
  facts: HardwareFacts,
  manifest: ImageManifest | undefined,
  provider: ProviderDescriptor,
  backend: Backend,
  container: string | undefined,
): string | undefined {
  if (container) return container
  if (facts.container.swarm !== 'manager') {
    const role = facts.container.swarm ?? 'inactive'
    return `the container engine is not a swarm manager (swarm: ${role}); run "docker swarm init" or point DOCKER_HOST at a manager`
  }
  const name = provider.image?.(backend)
  const entry = name ? manifest?.entries[name] : undefined
  if (entry?.source === 'local') {
    return `image "${name}" is built locally: other swarm nodes cannot pull it (push it to a registry and pin it)`
  }
  return undefined
}

function processVerdict(
  facts: HardwareFacts,
  provider: ProviderDescriptor,
  backend: Backend,
): string | undefined {
  const program = provider.hostProgram
  if (!program) return `${provider.kind} has no host program`
  const engine = facts.engines[program]
  if (!engine) return `${program} is not installed on this host`
  if (!engine.backends.includes(backend)) {
    return `the host ${program} cannot use ${backend} (it can use: ${engine.backends.join(', ')})`
  }
  return undefined
}

/** Decides every backend of one provider. Pure. */
export function decideProvider(
  facts: HardwareFacts,
  manifest: ImageManifest | undefined,
  provider: ProviderDescriptor,
): ProviderBackends {
  const out: ProviderBackends = {}
  for (const backend of provider.backends) {
    const hardware = hardwareVerdict(facts, backend)
    if (!hardware.ok) {
      out[backend] = hardware
      continue
    }
    const why: Partial<Record<RuntimeKind, string>> = {}
    const container = containerVerdict(facts, manifest, provider, backend)
    const process = processVerdict(facts, provider, backend)
    const swarm = swarmVerdict(facts, manifest, provider, backend, container)
    if (container) why.container = container
    if (process) why.process = process
    if (swarm) why.swarm = swarm
    const runtimes: RuntimeKind[] = []
    if (!container) runtimes.push('container')
    if (!process) runtimes.push('process')
    // Never a default (the placer takes the first): a swarm slot is asked for with runtime = "swarm".
    if (!swarm) runtimes.push('swarm')
    out[backend] =
      runtimes.length > 0
        ? { ok: true, runtimes, ...(Object.keys(why).length ? { unavailable: why } : {}) }
        : { ok: false, reason: `nothing can run it here: ${container}; ${process}` }
  }
  return out
}

/** The backend a slot without one gets: the first honoured one in `BACKEND_PREFERENCE` order. */
export function defaultBackend(kind: string, verdicts: ProviderBackends): Backend | undefined {
  const order = BACKEND_PREFERENCE[kind] ?? DEFAULT_BACKEND_PREFERENCE
  return order.find((b) => verdicts[b]?.ok)
}

/**
 * Throws `backend.unavailable` (409) with the reason unless `kind` can use `backend` here — and, when
 * given, with `runtime`. A `remote` runtime is never refused: local hardware does not apply to it.
 */
export function assertBackend(
  providers: Readonly<Record<string, ProviderBackends>>,
  kind: string,
  backend: Backend,
  runtime?: RuntimeKind,
): void {
  if (runtime === 'remote') return
  const verdicts = providers[kind]
  if (!verdicts) throw new SvcError('backend.unavailable', `no provider "${kind}" is known to the picker`)
  const verdict = verdicts[backend]
  if (!verdict) {
    const offered = Object.keys(verdicts).join(', ')
    throw new SvcError('backend.unavailable', `${kind} has no backend "${backend}" (it has: ${offered})`)
  }
  if (!verdict.ok)
    throw new SvcError('backend.unavailable', `${kind} cannot use ${backend} here: ${verdict.reason}`)
  if (runtime && !verdict.runtimes.includes(runtime)) {
    const why = verdict.unavailable?.[runtime] ?? 'not supported'
    throw new SvcError('backend.unavailable', `${kind} cannot run ${backend} as a ${runtime} here: ${why}`)
  }
}

/**
 * The memory rule for big models (flux-schnell needs ≥ 24 GB): undefined when `model` fits, else the
 * reason. Compares with the machine's memory, which on an APU (Strix Halo) is also the GPU's.
 */
export function memoryShortfall(
  model: Pick<ModelEntry, 'id' | 'minVramGb'>,
  facts: HardwareFacts,
): string | undefined {
  const need = model.minVramGb
  const have = facts.memory.totalGb
  if (need === undefined || have === null || have >= need) return undefined
  return `model "${model.id}" needs at least ${need} GB of memory; this machine has ${have} GB`
}
