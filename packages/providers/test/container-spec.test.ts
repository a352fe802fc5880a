import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { loadInstanceId } from '../src/runtimes/container-instance'
import { LayerProgress } from '../src/runtimes/container-pull'
import {
  backendGroups,
  type ContainerSpecInput,
  containerSpec,
  groupIds,
} from '../src/runtimes/container-spec'

const input = (backend: ContainerSpecInput['backend']): ContainerSpecInput => ({
  name: 'svc-primary-x',
  image: `127.0.0.1:5000/t@sha256:${'a'.repeat(64)}`,
  argv: ['llama-server', '-m', '/models/m.gguf', '--port', '8080'],
  env: { A: '1' },
  backend,
  port: 8080,
  mounts: [
    { host: '/var/lib/svc/models/m', container: '/models', readOnly: true },
    { host: '/var/lib/svc/volumes/flm', container: '/root/.config/flm', readOnly: false },
  ],
  labels: { 'svc.slot': 'primary' },
  groups: ['44', '992'],
})

describe('container spec per backend', () => {
  it('Vulkan: /dev/dri, video/render groups, seccomp=unconfined; published on 127.0.0.1 only; no restarts', () => {
    const spec = containerSpec(input('vulkan'))
    expect(spec).toMatchObject({
      Image: input('vulkan').image,
      Entrypoint: ['llama-server'],
      Cmd: ['-m', '/models/m.gguf', '--port', '8080'],
      Env: ['A=1'],
      ExposedPorts: { '8080/tcp': {} },
      HostConfig: {
        PortBindings: { '8080/tcp': [{ HostIp: '127.0.0.1', HostPort: '' }] },
        Binds: ['/var/lib/svc/models/m:/models:ro', '/var/lib/svc/volumes/flm:/root/.config/flm:rw'],
        RestartPolicy: { Name: 'no' },
        Devices: [{ PathOnHost: '/dev/dri', PathInContainer: '/dev/dri', CgroupPermissions: 'rwm' }],
        GroupAdd: ['44', '992'],
        SecurityOpt: ['seccomp=unconfined'],
      },
    })
    expect(spec.HostConfig).not.toHaveProperty('DeviceRequests')
    expect(spec.HostConfig).not.toHaveProperty('Ulimits')
  })

  it('ROCm adds /dev/kfd', () => {
    expect(
      containerSpec(input('rocm')).HostConfig?.Devices?.map((d: { PathOnHost: string }) => d.PathOnHost),
    ).toEqual(['/dev/dri', '/dev/kfd'])
  })

  it('NPU: /dev/accel/accel0 and unlimited memlock, no seccomp change', () => {
    const host = containerSpec(input('npu')).HostConfig
    expect(host?.Devices?.map((d: { PathOnHost: string }) => d.PathOnHost)).toEqual(['/dev/accel/accel0'])
    expect(host?.Ulimits).toEqual([{ Name: 'memlock', Soft: -1, Hard: -1 }])
    expect(host).not.toHaveProperty('SecurityOpt')
  })

  it('CUDA: a GPU device request; CPU: no devices at all', () => {
    expect(containerSpec(input('cuda')).HostConfig?.DeviceRequests).toEqual([
      { Driver: '', Count: -1, DeviceIDs: [], Capabilities: [['gpu']], Options: {} },
    ])
    const cpu = containerSpec({ ...input('cpu'), groups: [] }).HostConfig
    expect(cpu?.Devices).toEqual([])
    expect(cpu).not.toHaveProperty('GroupAdd')
    expect(cpu).not.toHaveProperty('SecurityOpt')
  })

  it('runs the manifest program instead of argv[0] when the image has it elsewhere', () => {
    expect(containerSpec({ ...input('cuda'), program: '/app/llama-server' }).Entrypoint).toEqual([
      '/app/llama-server',
    ])
  })

  it('maps group names to the host GIDs', () => {
    const etc = 'root:x:0:\nvideo:x:44:alice\nrender:x:992:\nsudo:x:27:\n'
    expect(groupIds(etc, backendGroups('rocm'))).toEqual(['44', '992'])
    expect(groupIds(etc, backendGroups('cpu'))).toEqual([])
  })
})

describe('pull progress over layers', () => {
  it('sums bytes done and known totals across layer ids', () => {
    const p = new LayerProgress()
    expect(p.apply({ status: 'Pulling from svc-test/llama', id: 'v1' })).toBeUndefined()
    expect(p.apply({ status: 'Pulling fs layer', id: 'a' })).toBeUndefined()
    p.apply({ status: 'Pulling fs layer', id: 'b' })
    expect(p.apply({ status: 'Downloading', id: 'a', progressDetail: { current: 10, total: 100 } })).toEqual({
      done: 10,
      total: 100,
    })
    expect(p.apply({ status: 'Downloading', id: 'b', progressDetail: { current: 5, total: 50 } })).toEqual({
      done: 15,
      total: 150,
    })
    expect(p.apply({ status: 'Download complete', id: 'a' })).toEqual({ done: 105, total: 150 })
    expect(
      p.apply({ status: 'Extracting', id: 'a', progressDetail: { current: 3, total: 100 } }),
    ).toBeUndefined()
    expect(p.apply({ status: 'Pull complete', id: 'b' })).toEqual({ done: 150, total: 150 })
  })
})

describe('instance id', () => {
  it('is created once and then stable, however many first calls race', async () => {
    for (let round = 0; round < 20; round++) {
      const dir = await mkdtemp(join(tmpdir(), 'svc-instance-'))
      try {
        const ids = await Promise.all(Array.from({ length: 8 }, () => loadInstanceId(dir)))
        expect(ids[0]).toMatch(/^[0-9a-f]{16}$/)
        expect(new Set(ids).size).toBe(1)
        expect(await loadInstanceId(dir)).toBe(ids[0])
        expect((await readFile(join(dir, 'instance-id'), 'utf8')).trim()).toBe(ids[0])
        expect(await readdir(dir)).toEqual(['instance-id'])
      } finally {
        await rm(dir, { recursive: true, force: true })
      }
    }
  })
})
