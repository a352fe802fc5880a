import type { ModelEntry } from '../models'

/**
 * What makes two loads the same upstream: the ref and its projector file. The same ref loaded with
 * another projector is a swap, not a no-op.
 */
export function loadKey(model: ModelEntry): string {
  return `${model.id}\n${model.mmproj?.url ?? model.mmproj?.path ?? ''}`
}
