/**
 * The Docker Engine `POST /services/create` body for a swarm slot, as a pure function (like
 * container-spec.ts): what svc asks the swarm for is testable without a swarm.
 *
 * - Image by digest from the manifest; argv and env from the provider, as for a container.
 * - Placement constraints from node labels: by default `node.labels.svc.gpu==<backend>` for GPU
 *   backends (`vulkan`, `rocm`, `cuda`) and `node.labels.svc.npu==true` for the NPU; none for cpu.
 *   The slot's `constraints` replace them.
 * - Devices: swarm services cannot request devices (moby/swarmkit#1244), so the device nodes are
 *   bind-mounted and the video/render groups added; CUDA asks for an `NVIDIA-GPU` generic resource
 *   (the node advertises it in its daemon.json). The memory estimate is reserved, so the scheduler
 *   only places a replica where it fits.
 * - One host-mode published port per task, picked by the engine of its node: every replica is
 *   reachable at `<node address>:<its port>`, which is what lets svc route per replica.
 * - Labels: the service carries svc's (instance, slot, model, image); its task containers carry
 *   only `svc.swarm-service`, so the container runtime's clean-up never mistakes them for its own.
 */
import type { Backend } from '@svc/core'
import type Docker from 'dockerode'
import { backendAccess, type Mount } from './container-spec'

export const SWARM_TASK_LABEL = 'svc.swarm-service'

export interface SwarmServiceInput {
  name: string
  /** `repository@sha256:…`: every node pulls it by digest. */
  image: string
  argv: readonly string[]
  program?: string
  env: Readonly<Record<string, string>>
  backend: Backend
  /** The port the upstream listens on inside its container. */
  port: number
  mounts: readonly Mount[]
  /** Service labels (svc.managed, svc.instance, svc.slot, …). */
  labels: Readonly<Record<string, string>>
  groups: readonly string[]
  replicas: number
  /** Replaces the backend's default placement. */
  constraints?: readonly string[]
  /** Reserved per replica, so the scheduler only places it where it fits. */
  memoryBytes?: number
  /** How long a task may take to stop before it is killed (ms). */
  stopGraceMs: number
}

/** The default placement of a backend: the node label an operator sets with `docker node update`. */
export function defaultConstraints(backend: Backend): string[] {
  if (backend === 'cpu') return []
  if (backend === 'npu') return ['node.labels.svc.npu==true']
  return [`node.labels.svc.gpu==${backend}`]
}

export function swarmServiceSpec(input: SwarmServiceInput): Docker.CreateServiceOptions {
  const [argv0, ...args] = input.argv
  const access = backendAccess(input.backend)
  const devices = access.devices.map(
    (d): Docker.MountSettings => ({ Type: 'bind', Source: d, Target: d, ReadOnly: false }),
  )
  return {
    Name: input.name,
    Labels: { ...input.labels },
    TaskTemplate: {
      ContainerSpec: {
        Image: input.image,
        Command: [input.program ?? argv0 ?? ''],
        Args: args,
        Env: Object.entries(input.env).map(([k, v]) => `${k}=${v}`),
        Labels: { [SWARM_TASK_LABEL]: input.name },
        Mounts: [
          ...input.mounts.map(
            (m): Docker.MountSettings => ({
              Type: 'bind',
              Source: m.host,
              Target: m.container,
              ReadOnly: m.readOnly,
            }),
          ),
          ...devices,
        ],
        Init: true,
        StopGracePeriod: Math.max(1, Math.round(input.stopGraceMs)) * 1_000_000,
        ...(input.groups.length > 0 ? { Groups: [...input.groups] } : {}),
        ...(access.memlock ? { Ulimits: [{ Name: 'memlock', Soft: -1, Hard: -1 }] } : {}),
      },
      Resources: {
        Reservations: {
          // The engine refuses reservations under 4 MiB.
          ...(input.memoryBytes
            ? { MemoryBytes: Math.max(4 * 1024 ** 2, Math.round(input.memoryBytes)) }
            : {}),
          // The Engine API's shape; @types/dockerode flattens it wrongly.
          ...(access.gpuRequest
            ? {
                GenericResources: [
                  { DiscreteResourceSpec: { Kind: 'NVIDIA-GPU', Value: 1 } } as Docker.GenericResource,
                ],
              }
            : {}),
        },
      },
      // The swarm replaces a failed task (a new replica, on a new port); svc watches the set.
      RestartPolicy: { Condition: 'on-failure', Delay: 2_000_000_000, MaxAttempts: 0 },
      Placement: { Constraints: [...(input.constraints ?? defaultConstraints(input.backend))] },
    },
    Mode: { Replicated: { Replicas: input.replicas } },
    EndpointSpec: {
      Mode: 'vip',
      Ports: [{ Protocol: 'tcp', TargetPort: input.port, PublishMode: 'host' }],
    },
  }
}
