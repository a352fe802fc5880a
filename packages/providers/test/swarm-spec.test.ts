import { describe, expect, it } from 'vitest'
import { defaultConstraints, SWARM_TASK_LABEL, swarmServiceSpec } from '../src/runtimes/swarm-spec'
import { type SwarmTask, servicePhase } from '../src/runtimes/swarm-tasks'

const input = {
  name: 'svc-primary-0123abcd-xyz',
  image: `127.0.0.1:5000/llama@sha256:${'a'.repeat(64)}`,
  argv: ['llama-server', '-m', '/models/x.gguf', '--port', '8080'],
  env: { LLAMA_ARG_X: '1' },
  backend: 'rocm' as const,
  port: 8080,
  mounts: [{ host: '/var/lib/svc/models/x', container: '/models', readOnly: true }],
  labels: { 'svc.managed': 'true', 'svc.slot': 'primary' },
  groups: ['44', '109'],
  replicas: 2,
  stopGraceMs: 10_000,
}

describe('the swarm service of a slot', () => {
  it('places GPU backends by node label, the NPU by its own, cpu anywhere', () => {
    expect(defaultConstraints('rocm')).toEqual(['node.labels.svc.gpu==rocm'])
    expect(defaultConstraints('cuda')).toEqual(['node.labels.svc.gpu==cuda'])
    expect(defaultConstraints('npu')).toEqual(['node.labels.svc.npu==true'])
    expect(defaultConstraints('cpu')).toEqual([])
  })

  it('runs the pinned image with replicas, one host-mode port per task, devices and groups', () => {
    const spec = swarmServiceSpec({ ...input, memoryBytes: 5e9 })
    expect(spec).toMatchObject({
      Name: input.name,
      Labels: input.labels,
      Mode: { Replicated: { Replicas: 2 } },
      EndpointSpec: { Ports: [{ Protocol: 'tcp', TargetPort: 8080, PublishMode: 'host' }] },
      TaskTemplate: {
        ContainerSpec: {
          Image: input.image,
          Command: ['llama-server'],
          Args: ['-m', '/models/x.gguf', '--port', '8080'],
          Env: ['LLAMA_ARG_X=1'],
          Groups: ['44', '109'],
          Init: true,
          StopGracePeriod: 10_000_000_000,
          Mounts: [
            { Type: 'bind', Source: '/var/lib/svc/models/x', Target: '/models', ReadOnly: true },
            { Type: 'bind', Source: '/dev/dri', Target: '/dev/dri', ReadOnly: false },
            { Type: 'bind', Source: '/dev/kfd', Target: '/dev/kfd', ReadOnly: false },
          ],
        },
        Resources: { Reservations: { MemoryBytes: 5e9 } },
        Placement: { Constraints: ['node.labels.svc.gpu==rocm'] },
      },
    })
    // No published port is named: each task's engine picks one, so replicas can share a node.
    expect(spec.EndpointSpec?.Ports?.[0]?.PublishedPort).toBeUndefined()
  })

  it("labels task containers apart from svc's own containers", () => {
    const spec = swarmServiceSpec(input)
    const task = spec.TaskTemplate as { ContainerSpec: { Labels: Record<string, string> } }
    expect(task.ContainerSpec.Labels).toEqual({ [SWARM_TASK_LABEL]: input.name })
  })

  it('asks for an NVIDIA GPU as a generic resource, and takes the slot constraints over the defaults', () => {
    const spec = swarmServiceSpec({ ...input, backend: 'cuda', constraints: ['node.hostname==gpu1'] })
    expect(spec.TaskTemplate).toMatchObject({
      Resources: {
        Reservations: { GenericResources: [{ DiscreteResourceSpec: { Kind: 'NVIDIA-GPU', Value: 1 } }] },
      },
      Placement: { Constraints: ['node.hostname==gpu1'] },
    })
  })
})

const task = (state: string, more: Partial<SwarmTask> = {}): SwarmTask => ({
  id: `t-${state}`,
  state,
  desired: 'running',
  message: '',
  error: null,
  nodeId: 'n1',
  publishedPort: null,
  updatedAt: '2026-01-01T00:00:00Z',
  ...more,
})

describe('the phase of a swarm service', () => {
  it('maps task states onto the slot: scheduling and image pulls are pulling, then starting, then running', () => {
    expect(servicePhase([])).toEqual({ phase: 'pulling', detail: 'no task yet' })
    expect(servicePhase([task('preparing', { message: 'preparing' })])).toEqual({
      phase: 'pulling',
      detail: 'preparing: preparing',
    })
    expect(servicePhase([task('preparing'), task('starting')]).phase).toBe('starting')
    const unplaced = task('pending', {
      message: 'pending task scheduling',
      error: 'no suitable node (scheduling constraints not satisfied on 1 node)',
    })
    expect(servicePhase([unplaced])).toEqual({
      phase: 'pulling',
      detail: 'pending: no suitable node (scheduling constraints not satisfied on 1 node)',
    })
    expect(servicePhase([task('running'), task('starting')])).toEqual({ phase: 'running', running: 1 })
  })

  it('fails with the swarm reason when a task is rejected before any runs', () => {
    const rejected = task('rejected', { desired: 'shutdown', error: 'No such image: x@sha256:…' })
    expect(servicePhase([rejected, task('pending')])).toEqual({
      phase: 'failed',
      error: 'task rejected: No such image: x@sha256:…',
    })
    // A replaced task that failed earlier does not fail a service that runs now.
    expect(servicePhase([rejected, task('running')]).phase).toBe('running')
  })
})
