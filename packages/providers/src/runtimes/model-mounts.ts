/**
 * How a model's files reach an upstream in a container or a swarm task: the model's directory is
 * bind-mounted read-only at `/models`; a vision projector beside it is already in that mount, one
 * elsewhere (a `--mmproj` path of its own) gets `/mmproj`. Paths are the ones svc knows them by (on a
 * multi-node swarm every node must have them there).
 */
import { basename, dirname } from 'node:path'
import type { ModelEntry } from '@svc/core'
import type { Mount } from './container-spec'

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
