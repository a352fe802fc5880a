/**
 * What the container and the swarm runtimes share when an upstream runs from a manifest image: the
 * entry and pinned reference a request resolves to, and the container input that follows from it
 * (argv and env from the provider, the model's mounts, svc's labels). Each runtime turns that input
 * into its own engine call (`containerSpec`, `swarmServiceSpec`).
 */
import { readFileSync } from 'node:fs'
import { type Backend, type ModelEntry, SvcError } from '@svc/core'
import type Docker from 'dockerode'
import type { Provider } from '../contract'
import type { ImageEntry, ImageManifest } from '../manifest/manifest'
import {
  backendGroups,
  type ContainerSpecInput,
  groupIds,
  LABELS,
  type Mount,
  upstreamLabels,
} from './container-spec'
import { imageSlotContext, upstreamName } from './model-mounts'
import type { RuntimeStartRequest } from './runtime'
import { keyEnvName, newUpstreamKey } from './upstream-key'

/** The options the container and the swarm runtimes both take. */
export interface ImageRuntimeOptions {
  manifest: ImageManifest
  /** This svc's id (`loadInstanceId(stateDir)`), labelled on every upstream (what `recover` goes by). */
  instance: string
  /** `instanceHome(stateDir)`, labelled too: upstreams of an older instance id of the same home are this svc's. */
  home?: string
  /**
   * Pids of other svc processes running on this state directory now (`registerLiveRun`): while any
   * does, `recover` touches nothing, since what it finds may be theirs.
   */
  othersLive?: () => Promise<readonly number[]>
  /** Default: a client for `DOCKER_HOST` (or the local socket). */
  docker?: Docker
  /** Extra labels on every upstream; `recover` only considers upstreams carrying all of them. */
  labels?: Readonly<Record<string, string>>
  /** The port upstreams listen on inside their container unless the image fixes one. Default 8080. */
  containerPort?: number
  /** Supplementary groups per backend. Default: the host's numeric GIDs of video/render from /etc/group. */
  groups?: (backend: Backend) => string[]
}

/** A manifest entry as a request resolves it: its name, the entry, and the reference to run. */
export interface ResolvedImage {
  name: string
  entry: ImageEntry
  reference: string
}

/**
 * The manifest image `provider` names for `backend` (and `model`, where given). Throws a
 * `backend.unavailable` SvcError when the provider has none; `hint` ends that message (what to do).
 */
export function resolveImage(
  manifest: ImageManifest,
  want: { provider: Provider; backend: Backend; model?: ModelEntry },
  hint = '',
): ResolvedImage {
  const name = want.provider.image?.(want.backend, want.model)
  if (!name) {
    throw new SvcError(
      'backend.unavailable',
      `${want.provider.kind} has no container image for ${want.backend}${hint}`,
    )
  }
  return { name, entry: manifest.entry(name), reference: manifest.reference(name) }
}

/** The reference the manifest pins now for `entry`; undefined when the entry is gone or unpinned. */
export function currentReference(manifest: ImageManifest, entry: string | undefined): string | undefined {
  try {
    return entry ? manifest.reference(entry) : undefined
  } catch {
    return undefined // entry gone or no longer pinned: whatever runs is outdated
  }
}

/**
 * The container input of one upstream for `req`: named uniquely for its slot, listening on the
 * entry's port (else the runtime's `containerPort`, else 8080) with the model's mounts plus `volumes`,
 * in the backend's groups, and labelled for `recover` with `scope` (the runtime's labels) and its
 * instance.
 */
export function imageUpstreamInput(input: {
  req: RuntimeStartRequest
  image: ResolvedImage
  runtime: 'container' | 'swarm'
  options: ImageRuntimeOptions
  scope: Readonly<Record<string, string>>
  volumes?: readonly Mount[]
}): ContainerSpecInput {
  const { req, image, options } = input
  const port = image.entry.port ?? options.containerPort ?? 8080
  const key = req.apiKey ?? newUpstreamKey()
  const { ctx, mounts } = imageSlotContext(req, input.runtime, port, key)
  const providerEnv = req.provider.buildEnv(ctx)
  const keyEnv = keyEnvName(providerEnv, key)
  const result: ContainerSpecInput = {
    name: upstreamName(req.slot, options.instance),
    image: image.reference,
    argv: req.provider.startCommand(ctx),
    ...(image.entry.program ? { program: image.entry.program } : {}),
    env: { ...image.entry.env, ...providerEnv, ...req.env },
    ...(keyEnv ? { apiKey: key } : {}),
    backend: req.backend,
    port,
    mounts: [...mounts, ...(input.volumes ?? [])],
    groups: (options.groups ?? hostBackendGroups)(req.backend),
    labels: upstreamLabels({
      scope: input.scope,
      instance: options.instance,
      ...(options.home ? { home: options.home } : {}),
      slot: req.slot,
      model: req.model.id,
      image: { name: image.name, reference: image.reference },
      backend: req.backend,
      port,
    }),
  }
  if (keyEnv) result.labels = { ...result.labels, [LABELS.keyEnv]: keyEnv }
  return result
}

/**
 * Whose an upstream `recover` found for its slot is: `mine` (this instance's: adopt or remove),
 * `old-id` (an older instance id of this very state dir: nothing else will ever recover it, so it is
 * removed), or `foreign` (another instance's, or made before svc labelled homes: never touched;
 * `svc doctor` names it).
 */
export function ownerOf(
  labels: Readonly<Record<string, string>>,
  options: Pick<ImageRuntimeOptions, 'instance' | 'home'>,
): 'mine' | 'old-id' | 'foreign' {
  if (labels[LABELS.instance] === options.instance) return 'mine'
  if (options.home && labels[LABELS.home] === options.home) return 'old-id'
  return 'foreign'
}

/** The host's numeric GIDs of the groups that may open `backend`'s devices (none without /etc/group). */
function hostBackendGroups(backend: Backend): string[] {
  let etc = ''
  try {
    etc = readFileSync('/etc/group', 'utf8')
  } catch {
    // no /etc/group: no extra groups
  }
  return groupIds(etc, backendGroups(backend))
}

/** The container engine's own message in a dockerode error (its JSON body), else the error's. */
export function engineMessage(error: unknown): string {
  const e = error as { json?: { message?: string }; message?: string }
  return e.json?.message ?? e.message ?? String(error)
}
