/**
 * How a model's files reach an upstream in a container or a swarm task: the model's directory is
 * bind-mounted read-only at `/models`; a vision projector beside it is already in that mount, one
 * elsewhere (a `--mmproj` path of its own) gets `/mmproj`. Paths are the ones svc knows them by (on a
 * multi-node swarm every node must have them there).
 */
import { basename, dirname } from 'node:path'
import type { ModelEntry } from '@svc/core'
import type { SlotContext } from '../contract'
import type { Mount } from './container-spec'
import type { RuntimeStartRequest } from './runtime'

export const MODEL_MOUNT = '/models'
/** Where a projector that does not sit beside its model is mounted. */
export const PROJECTOR_MOUNT = '/mmproj'

export interface ModelMounts {
  mounts: Mount[]
  /** The model as the upstream sees it: its path in the container, or its id when it has no file. */
  modelPath: string
  /** The projector's path in the container, when the model has one on disk. */
  mmprojPath?: string
}

export function modelMounts(model: Pick<ModelEntry, 'id' | 'path' | 'mmproj'>): ModelMounts {
  const mounts: Mount[] = []
  let modelPath = model.path ?? model.id
  if (model.path) {
    mounts.push({ host: dirname(model.path), container: MODEL_MOUNT, readOnly: true })
    modelPath = `${MODEL_MOUNT}/${basename(model.path)}`
  }
  const projector = model.mmproj?.path
  if (!projector) return { mounts, modelPath }
  if (model.path && dirname(projector) === dirname(model.path)) {
    return { mounts, modelPath, mmprojPath: `${MODEL_MOUNT}/${basename(projector)}` }
  }
  mounts.push({ host: dirname(projector), container: PROJECTOR_MOUNT, readOnly: true })
  return { mounts, modelPath, mmprojPath: `${PROJECTOR_MOUNT}/${basename(projector)}` }
}

/**
 * What a provider is told when its upstream runs from an image (a container or a swarm task): the
 * model at its mount path, listening on every address of its own network namespace at `port`.
 */
export function imageSlotContext(
  req: RuntimeStartRequest,
  runtime: 'container' | 'swarm',
  port: number,
  apiKey?: string,
): { ctx: SlotContext; mounts: Mount[] } {
  const { mounts, modelPath, mmprojPath } = modelMounts(req.model)
  const ctx: SlotContext = {
    slot: req.slot,
    model: req.model,
    modelPath,
    ...(mmprojPath ? { mmprojPath } : {}),
    backend: req.backend,
    runtime,
    host: '0.0.0.0',
    port,
    args: req.args,
    ...(req.role ? { role: req.role } : {}),
    ...(req.ctxSize !== undefined ? { ctxSize: req.ctxSize } : {}),
    ...(apiKey ? { apiKey } : {}),
  }
  return { ctx, mounts }
}

/** A container's or a service's name: `svc-<slot>-<instance>-<random>`, unique per start. */
export function upstreamName(slot: string, instance: string): string {
  return `svc-${slot}-${instance.slice(0, 8)}-${Math.random().toString(36).slice(2, 8)}`
}
