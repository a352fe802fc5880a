/**
 * The Docker Engine `POST /containers/create` body for one upstream, as a pure function, so what svc
 * asks the engine for is testable without an engine (and without the hardware).
 *
 * Per backend (the Strix Halo toolbox README; docs/providers.md, "Strix Halo toolboxes"): Vulkan gets `/dev/dri`; ROCm
 * `/dev/dri` and `/dev/kfd`; both the host's `video`/`render` groups and `seccomp=unconfined`. The NPU
 * gets `/dev/accel/accel0` and an unlimited memlock limit (XRT pins buffers); CUDA a GPU device
 * request (the NVIDIA container toolkit). The port is published on 127.0.0.1 only, to a port the
 * engine picks; svc owns restarts (`RestartPolicy: no`); a tiny init reaps and forwards signals.
 */
import type { Backend } from '@svc/core'
import type Docker from 'dockerode'

/** Labels svc puts on every container it creates (what `recover` and `docker ps` go by). */
export const LABELS = {
  managed: 'svc.managed',
  instance: 'svc.instance',
  /** `<hostname>:<state dir>` of the svc that made it (`instanceHome`). */
  home: 'svc.home',
  /** The env variable that holds the upstream's key (its value is not a label: labels are listed everywhere). */
  keyEnv: 'svc.key-env',
  slot: 'svc.slot',
  model: 'svc.model',
  image: 'svc.image',
  imageRef: 'svc.image-ref',
  backend: 'svc.backend',
  port: 'svc.port',
} as const

/** The labels of one upstream: who owns it (`scope`, `instance`) and what it runs, for `recover`. */
export function upstreamLabels(u: {
  scope: Readonly<Record<string, string>>
  instance: string
  home?: string
  slot: string
  model: string
  image: { name: string; reference: string }
  backend: Backend
  port: number
}): Record<string, string> {
  return {
    ...u.scope,
    [LABELS.instance]: u.instance,
    ...(u.home ? { [LABELS.home]: u.home } : {}),
    [LABELS.slot]: u.slot,
    [LABELS.model]: u.model,
    [LABELS.image]: u.image.name,
    [LABELS.imageRef]: u.image.reference,
    [LABELS.backend]: u.backend,
    [LABELS.port]: String(u.port),
  }
}

export interface Mount {
  host: string
  container: string
  readOnly: boolean
}

export interface ContainerSpecInput {
  name: string
  /** What to run: `repository@sha256:…` or a local image id. */
  image: string
  /** argv from the provider; argv[0] becomes the entrypoint (replaced by `program` when set). */
  argv: readonly string[]
  program?: string
  env: Readonly<Record<string, string>>
  backend: Backend
  /** The port the upstream listens on inside the container. */
  port: number
  mounts: readonly Mount[]
  labels: Readonly<Record<string, string>>
  /** Supplementary groups (numeric host GIDs, or `keep-groups` for rootless podman). */
  groups: readonly string[]
  /** Not part of the spec: the key `env` holds for the upstream, when its provider took one. */
  apiKey?: string
}

interface DeviceSet {
  devices: string[]
  security: string[]
  memlock: boolean
  gpuRequest: boolean
}

/** Devices, security options and limits each backend needs. */
export function backendAccess(backend: Backend): DeviceSet {
  switch (backend) {
    case 'vulkan':
      return { devices: ['/dev/dri'], security: ['seccomp=unconfined'], memlock: false, gpuRequest: false }
    case 'rocm':
      return {
        devices: ['/dev/dri', '/dev/kfd'],
        security: ['seccomp=unconfined'],
        memlock: false,
        gpuRequest: false,
      }
    case 'npu':
      return { devices: ['/dev/accel/accel0'], security: [], memlock: true, gpuRequest: false }
    case 'cuda':
      return { devices: [], security: [], memlock: false, gpuRequest: true }
    case 'cpu':
      return { devices: [], security: [], memlock: false, gpuRequest: false }
  }
}

/** The host groups whose members may open the backend's device nodes. */
export function backendGroups(backend: Backend): string[] {
  return backend === 'vulkan' || backend === 'rocm'
    ? ['video', 'render']
    : backend === 'npu'
      ? ['render']
      : []
}

export function containerSpec(input: ContainerSpecInput): Docker.ContainerCreateOptions {
  const [argv0, ...args] = input.argv
  const access = backendAccess(input.backend)
  const port = `${input.port}/tcp`
  return {
    name: input.name,
    Image: input.image,
    Entrypoint: [input.program ?? argv0 ?? ''],
    Cmd: args,
    Env: Object.entries(input.env).map(([k, v]) => `${k}=${v}`),
    Labels: { ...input.labels },
    ExposedPorts: { [port]: {} },
    Tty: false,
    OpenStdin: false,
    HostConfig: {
      PortBindings: { [port]: [{ HostIp: '127.0.0.1', HostPort: '' }] },
      Binds: input.mounts.map((m) => `${m.host}:${m.container}:${m.readOnly ? 'ro' : 'rw'}`),
      RestartPolicy: { Name: 'no' },
      Init: true,
      Devices: access.devices.map((d) => ({ PathOnHost: d, PathInContainer: d, CgroupPermissions: 'rwm' })),
      ...(input.groups.length > 0 ? { GroupAdd: [...input.groups] } : {}),
      ...(access.security.length > 0 ? { SecurityOpt: access.security } : {}),
      ...(access.memlock ? { Ulimits: [{ Name: 'memlock', Soft: -1, Hard: -1 }] } : {}),
      ...(access.gpuRequest
        ? { DeviceRequests: [{ Driver: '', Count: -1, DeviceIDs: [], Capabilities: [['gpu']], Options: {} }] }
        : {}),
    },
  }
}

/**
 * Numeric GIDs of `names` from an `/etc/group` text (the host's: device nodes are owned by host
 * GIDs, and the image may not know the names). Unknown names are left out.
 */
export function groupIds(etcGroup: string, names: readonly string[]): string[] {
  const ids: string[] = []
  for (const line of etcGroup.split('\n')) {
    const [name, , gid] = line.split(':')
    if (name && gid && names.includes(name)) ids.push(gid)
  }
  return ids
}
