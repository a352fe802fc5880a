/**
 * One runtime per kind for the whole server: the host process runtime, the container runtime (when a
 * container engine and the image manifest are there), a remote runtime per remote slot. NPU slots
 * share one upstream, so their runtime is wrapped in the NPU sharing layer.
 */
import { type SlotConfig, SvcError } from '@svc/core'
import {
  createNpuRuntime,
  createProcessRuntime,
  createRemoteRuntime,
  createSharedUpstreams,
  type Runtime,
  type RuntimeStartRequest,
  withLocalReplicas,
} from '@svc/providers'
import { remoteUrls } from './remote-model'

export interface RuntimesOptions {
  stateDir: string
  /** The server's environment: programs are found with it, upstreams get the part they need. */
  env: Readonly<Record<string, string | undefined>>
  /** The container runtime, when this server has one. */
  container?: Runtime
  /** The swarm runtime, when this server has an image manifest. */
  swarm?: Runtime
  /** Other svc processes on this state dir (`registerLiveRun`): the process runtime's recover waits them out. */
  othersLive?: () => Promise<readonly number[]>
}

export function createRuntimes(options: RuntimesOptions) {
  // `replicas = N` (or `devices`) runs N local upstreams behind one slot (local-replicas.ts).
  const process = withLocalReplicas(
    createProcessRuntime({
      stateDir: options.stateDir,
      env: options.env,
      ...(options.othersLive ? { othersLive: options.othersLive } : {}),
    }),
  )
  const container = options.container && withLocalReplicas(options.container)
  const npuShared = createSharedUpstreams<RuntimeStartRequest>()
  const npu = new Map<Runtime, Runtime>()

  const base = (config: SlotConfig, runtime: string): Runtime => {
    if (runtime === 'remote') return createRemoteRuntime({ urls: remoteUrls(config) })
    if (runtime === 'swarm') {
      if (!options.swarm)
        throw new SvcError(
          'backend.unavailable',
          `slot "${config.name}": no container engine is configured for swarm`,
        )
      return options.swarm
    }
    if (runtime === 'container') {
      if (!container)
        throw new SvcError('backend.unavailable', `slot "${config.name}": no container engine is configured`)
      return container
    }
    return process
  }
  return {
    /** The runtime a slot uses, given its effective runtime kind. */
    runtimeFor(config: SlotConfig, runtime: string): Runtime {
      const chosen = base(config, runtime)
      if (config.provider !== 'npu' || runtime === 'remote') return chosen
      let shared = npu.get(chosen)
      if (!shared) {
        shared = createNpuRuntime(chosen, npuShared)
        npu.set(chosen, shared)
      }
      return shared
    },
  }
}
