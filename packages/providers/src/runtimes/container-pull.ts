/**
 * Pulling an image by digest with one progress figure: the engine reports per layer
 * (`{id, status: "Downloading", progressDetail: {current, total}}`); svc sums bytes done and bytes
 * known over all layers, so the slot's `pulling` progress moves like a single download.
 */
import type { PullProgress } from '@svc/core'
import type Docker from 'dockerode'

interface PullEvent {
  id?: string
  status?: string
  progressDetail?: { current?: number; total?: number }
  error?: string
  errorDetail?: { message?: string }
}

/** Sums per-layer download progress. Pure: feed it the engine's events in order. */
export class LayerProgress {
  private readonly layers = new Map<string, { done: number; total: number | null }>()

  /** Applies one event; returns the new aggregate when it changed, else undefined. */
  apply(event: PullEvent): PullProgress | undefined {
    const id = event.id
    if (!id || !event.status) return undefined
    const layer = this.layers.get(id) ?? { done: 0, total: null }
    const before = `${layer.done}/${layer.total}`
    const detail = event.progressDetail
    if (event.status === 'Downloading' && detail) {
      if (typeof detail.current === 'number') layer.done = detail.current
      if (typeof detail.total === 'number' && detail.total > 0) layer.total = detail.total
    } else if (['Download complete', 'Pull complete', 'Verifying Checksum'].includes(event.status)) {
      if (layer.total !== null) layer.done = layer.total
    } else if (event.status === 'Pulling fs layer' || event.status === 'Waiting') {
      // known layer, size not yet known
    } else if (!this.layers.has(id)) {
      return undefined // status lines about the image itself ("Pulling from …", "Digest: …")
    }
    this.layers.set(id, layer)
    return before === `${layer.done}/${layer.total}` && this.layers.size > 0 ? undefined : this.total()
  }

  total(): PullProgress {
    let done = 0
    let total = 0
    let known = false
    for (const layer of this.layers.values()) {
      done += layer.done
      if (layer.total !== null) {
        total += layer.total
        known = true
      }
    }
    return { done, total: known ? total : null }
  }
}

/**
 * Pulls `reference` and resolves when the engine has it; rejects with the engine's message. Progress
 * is reported as it changes, and once more at the end with done = total.
 */
export async function pullImage(
  docker: Docker,
  reference: string,
  onProgress: (p: PullProgress) => void,
  signal?: AbortSignal,
): Promise<void> {
  signal?.throwIfAborted()
  const stream = (await docker.pull(reference)) as NodeJS.ReadableStream
  const progress = new LayerProgress()
  await new Promise<void>((resolve, reject) => {
    const abort = () => {
      ;(stream as NodeJS.ReadableStream & { destroy?: (e?: Error) => void }).destroy?.(
        new Error('pull aborted'),
      )
      reject(signal?.reason ?? new Error('pull aborted'))
    }
    signal?.addEventListener('abort', abort, { once: true })
    docker.modem.followProgress(
      stream,
      (error: Error | null) => {
        signal?.removeEventListener('abort', abort)
        if (error) reject(new Error(`pulling ${reference} failed: ${error.message}`))
        else resolve()
      },
      (event: PullEvent) => {
        if (event.error) return // followProgress reports it through the finish callback
        const p = progress.apply(event)
        if (p) onProgress(p)
      },
    )
  })
  const final = progress.total()
  onProgress({ done: final.total ?? final.done, total: final.total ?? final.done })
}
