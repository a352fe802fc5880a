/**
 * What the `container` and `swarm` runtimes' `recover` share: which upstreams found on the engine (a
 * container, a swarm service) svc adopts for a slot, which it removes and which it leaves alone. The
 * runtimes differ only in how they list, adopt and remove one.
 *
 * - Nothing at all while another svc runs on the same state dir (`othersLive`): what is found may be its.
 * - Another instance's upstreams are never touched (two installs on one engine; `svc doctor` names
 *   the leftovers of one that is gone).
 * - The first one this instance labelled for the slot that runs the image the manifest pins now and
 *   answers its health probe is adopted; one that does not answer is stopped.
 * - Everything else of this instance or of an older instance id of the same state dir (unhealthy,
 *   exited, outdated, a second one) is removed.
 */
import type { UpstreamHandle } from '@svc/core'
import { LABELS } from './container-spec'
import { currentReference, type ImageRuntimeOptions, ownerOf } from './image-upstream'

export interface RecoverOwnedInput<T> {
  options: Pick<ImageRuntimeOptions, 'manifest' | 'instance' | 'home' | 'othersLive'>
  /** The runtime's own labels, on everything it made (`svc.managed`, …). */
  scope: Readonly<Record<string, string>>
  slot: string
  /** Lists what carries these labels (`key=value`); throws the engine's refusal as an SvcError. */
  list(filters: { label: string[] }): Promise<readonly T[]>
  labelsOf(found: T): Readonly<Record<string, string>>
  /** Whether it may be adopted at all (a container that runs); default: yes. */
  running?(found: T): boolean
  /** A handle on it; undefined when it cannot serve (no published port, no running task). */
  adopt(found: T): Promise<UpstreamHandle | undefined>
  remove(found: T): Promise<void>
  isHealthy(handle: UpstreamHandle): Promise<boolean>
}

/** Adopts at most one upstream for the slot and removes this svc's others (rules above). */
export async function recoverOwned<T>(
  input: RecoverOwnedInput<T>,
): Promise<{ modelId: string; handle: UpstreamHandle } | undefined> {
  const { options } = input
  if ((await options.othersLive?.())?.length) return undefined
  const label = [...Object.entries(input.scope).map(([k, v]) => `${k}=${v}`), `${LABELS.slot}=${input.slot}`]
  const found = await input.list({ label })
  let adopted: { modelId: string; handle: UpstreamHandle } | undefined
  for (const item of found) {
    const labels = input.labelsOf(item)
    const owner = ownerOf(labels, options)
    if (owner === 'foreign') continue
    const candidate =
      !adopted &&
      owner === 'mine' &&
      (input.running?.(item) ?? true) &&
      currentReference(options.manifest, labels[LABELS.image]) === labels[LABELS.imageRef]
    if (candidate) {
      const handle = await input.adopt(item)
      if (handle) {
        if (await input.isHealthy(handle)) adopted = { modelId: labels[LABELS.model] ?? '', handle }
        else await handle.stop(5_000)
        continue
      }
    }
    await input.remove(item)
  }
  return adopted
}
