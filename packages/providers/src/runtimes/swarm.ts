/**
 * The `swarm` runtime: a slot runs as a Docker Swarm service through dockerode, so its
 * replicas may run on other machines. The picker offers it only when the engine is a swarm manager.
 *
 * Lifecycle against the slot's states: `pull` creates the service and waits while its tasks are
 * scheduled and their nodes pull the image (task states new … preparing: the slot is `pulling`);
 * `start` waits while a task starts (`starting`) until one runs; the slot's health probe decides
 * `warming` → `ready`. A task that fails or is rejected before any runs fails the load with the
 * swarm's reason; so does a service no node can take (constraints) after `schedulingTimeoutMs`.
 * Unload removes the service. `recover` adopts the healthy service this svc instance made for the
 * slot and removes its others (recover-owned.ts, the rules it shares with the container runtime).
 *
 * The model file is bind-mounted from the path svc knows it by: on a multi-node swarm that path must
 * exist on every node that may run the slot (shared storage), see docs/scale-out.md.
 */
import { SvcError } from '@svc/core'
import Docker from 'dockerode'
import { estimateLoad } from '../memory/estimate'
import { LABELS } from './container-spec'
import { engineMessage, type ImageRuntimeOptions, imageUpstreamInput, resolveImage } from './image-upstream'
import { recoverOwned } from './recover-owned'
import type { Runtime, RuntimeStartRequest } from './runtime'
import { removeService, type SwarmServiceInfo, serviceContainersGone, swarmHandle } from './swarm-handle'
import { swarmServiceSpec } from './swarm-spec'
import { runningMembers, servicePhase, serviceTasks } from './swarm-tasks'
import { envValue } from './upstream-key'

export interface SwarmRuntimeOptions extends ImageRuntimeOptions {
  /** Between looks at the tasks (ms). Default 250. */
  pollMs?: number
  /** How long tasks may find no node that satisfies the constraints before the load fails (ms). Default 15 s. */
  schedulingTimeoutMs?: number
  /** Task containers' stop grace (ms). Default 10 s. */
  stopGraceMs?: number
}

const SWARM_LABEL = 'svc.runtime'

/** The fields of a listed swarm service that `recover` reads. */
interface SwarmServiceSummary {
  ID: string
  Spec?: {
    Name?: string
    Labels?: Record<string, string>
    Mode?: { Replicated?: { Replicas?: number } }
    TaskTemplate?: { ContainerSpec?: { Env?: string[] } }
  }
}

export function createSwarmRuntime(options: SwarmRuntimeOptions): Runtime {
  const docker = options.docker ?? new Docker()
  const scope = { [LABELS.managed]: 'true', [SWARM_LABEL]: 'swarm', ...options.labels }
  const pollMs = options.pollMs ?? 250
  /** Services `pull` created whose `start` has not come yet, by slot. */
  const pending = new Map<string, SwarmServiceInfo>()

  const imageOf = (req: RuntimeStartRequest) => {
    // With the model, as the container runtime asks: it picks among a provider's engines (tts' Kokoro
    // or Chatterbox).
    const image = resolveImage(options.manifest, req)
    if (image.entry.source === 'local') {
      throw new SvcError(
        'backend.unavailable',
        `image "${image.name}" is built locally: swarm nodes cannot pull it; push it to a registry and pin it`,
      )
    }
    return image
  }

  async function create(req: RuntimeStartRequest): Promise<SwarmServiceInfo> {
    const input = imageUpstreamInput({
      req,
      image: imageOf(req),
      runtime: 'swarm',
      options,
      scope,
    })
    const { name, port, image: reference } = input
    const estimate = await estimateLoad({
      model: req.model,
      args: req.args,
      ...(req.ctxSize !== undefined ? { ctxSize: req.ctxSize } : {}),
    }).catch(() => undefined)
    const replicas = req.replicas ?? 1
    const spec = swarmServiceSpec({
      ...input,
      replicas,
      ...(req.constraints ? { constraints: req.constraints } : {}),
      ...(estimate?.bytes ? { memoryBytes: estimate.bytes } : {}),
      stopGraceMs: options.stopGraceMs ?? 10_000,
    })
    req.signal.throwIfAborted()
    const service = await docker.createService(spec).catch((error: unknown) => {
      throw new Error(
        `cannot create the swarm service of ${req.slot} from ${reference}: ${engineMessage(error)}`,
      )
    })
    const key = input.apiKey ? { apiKey: input.apiKey } : {}
    return { id: service.id, name, base: new URL('http://0.0.0.0'), port, image: reference, replicas, ...key }
  }

  /** Waits until the service's tasks reach `until`; removes the service and throws when they cannot. */
  async function waitFor(info: SwarmServiceInfo, until: 'starting' | 'running', req: RuntimeStartRequest) {
    let unschedulableSince: number | undefined
    for (;;) {
      if (req.signal.aborted) throw await gone(info, req.signal.reason)
      const tasks = await serviceTasks(docker, info.name, info.port).catch(() => [])
      const state = servicePhase(tasks)
      if (state.phase === 'failed')
        throw await gone(info, new Error(`the swarm could not run ${req.slot}: ${state.error}`))
      if (state.phase === 'running' || (until === 'starting' && state.phase === 'starting')) return
      if (state.phase === 'pulling' && /no suitable node/i.test(state.detail)) {
        unschedulableSince ??= Date.now()
        if (Date.now() - unschedulableSince > (options.schedulingTimeoutMs ?? 15_000)) {
          throw await gone(info, new Error(`no swarm node can run ${req.slot}: ${state.detail}`))
        }
      } else unschedulableSince = undefined
      await new Promise((r) => setTimeout(r, pollMs))
    }
  }

  async function gone(info: SwarmServiceInfo, reason: unknown): Promise<unknown> {
    for (const [slot, waiting] of pending) if (waiting === info) pending.delete(slot)
    await removeService(docker, info.id).catch(() => undefined)
    await serviceContainersGone(docker, info.name, 15_000)
    return reason
  }

  return {
    kind: 'swarm',
    // The nodes pull; svc cannot know whether they hold the image. `pulling` lasts while they do.
    needsPull: async () => true,

    async pull(req) {
      const stale = pending.get(req.slot)
      if (stale) await gone(stale, undefined)
      const info = await create(req)
      pending.set(req.slot, info)
      // A load cancelled between pull and start would leave the service to nobody: remove it then.
      const onAbort = () => {
        if (pending.get(req.slot) === info) void gone(info, undefined)
      }
      req.signal.addEventListener('abort', onAbort, { once: true })
      await waitFor(info, 'starting', req)
    },

    async start(req) {
      let info = pending.get(req.slot)
      pending.delete(req.slot)
      info ??= await create(req)
      await waitFor(info, 'running', req)
      const [first] = await runningMembers(docker, info.name, info.port)
      if (!first)
        throw await gone(
          info,
          new Error(`the swarm service of ${req.slot} runs no task with a published port`),
        )
      return swarmHandle(docker, { ...info, base: first.base })
    },

    recover: (slot, isHealthy) =>
      recoverOwned({
        options,
        scope,
        slot,
        list: (filters) =>
          (docker.listServices({ filters }) as Promise<SwarmServiceSummary[]>).catch((error: unknown) => {
            throw new SvcError(
              'upstream.unavailable',
              `the swarm manager did not answer: ${engineMessage(error)}`,
            )
          }),
        labelsOf: (s) => s.Spec?.Labels ?? {},
        async adopt(s) {
          const labels = s.Spec?.Labels ?? {}
          const name = s.Spec?.Name ?? s.ID
          const port = Number(labels[LABELS.port])
          const [first] = await runningMembers(docker, name, port).catch(() => [])
          if (!first) return undefined
          const apiKey = envValue(s.Spec?.TaskTemplate?.ContainerSpec?.Env, labels[LABELS.keyEnv])
          return swarmHandle(docker, {
            id: s.ID,
            name,
            base: first.base,
            port,
            image: labels[LABELS.imageRef] ?? '',
            replicas: s.Spec?.Mode?.Replicated?.Replicas ?? 1,
            ...(apiKey ? { apiKey } : {}),
          })
        },
        async remove(s) {
          await removeService(docker, s.ID).catch(() => undefined)
          await serviceContainersGone(docker, s.Spec?.Name ?? s.ID, 15_000)
        },
        isHealthy,
      }),
  }
}
