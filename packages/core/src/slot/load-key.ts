import type { ModelEntry } from '../models'

/**
 * What makes two loads the same upstream: the ref, its projector file and a preset's engine
 * settings. The same ref loaded with another projector, or other preset args, is a swap, not a no-op.
 */
export function loadKey(model: ModelEntry): string {
  const engine = model.engine ? JSON.stringify([model.engine.args, model.engine.ctxSize ?? null]) : ''
  return `${model.id}\n${model.mmproj?.url ?? model.mmproj?.path ?? ''}\n${engine}`
}
