/**
 * A slot's load/unload queue. Every change of a slot runs on one chain, one at a time, in the order
 * asked for. The load in progress is known, so that a second load of the same model joins it, and a
 * newer load or an unload cancels it (through its AbortSignal) while it has not reached `ready`;
 * the cancelled load then settles and the next operation runs after it.
 */
import type { ModelEntry } from '../models'

/** Why a queued load was cancelled (its signal's reason). */
export class Cancelled extends Error {}

interface QueuedLoad<T> {
  model: ModelEntry
  /** What makes two loads the same load (`loadKey`: the model and its projector). */
  key: string
  controller: AbortController
  promise: Promise<T>
}

export class LoadQueue<T> {
  private chain: Promise<unknown> = Promise.resolve()
  private queued = 0
  private loading: QueuedLoad<T> | null = null

  /** Nothing queued or running, not even a cancelled load still settling. */
  get idle(): boolean {
    return this.queued === 0 && this.loading === null
  }

  /** Nothing queued or running ("already loaded" can only be true then). */
  get empty(): boolean {
    return this.queued === 0
  }

  /** The model of the load in progress, unless that load was cancelled. */
  get loadingModel(): ModelEntry | null {
    return this.loading && !this.loading.controller.signal.aborted ? this.loading.model : null
  }

  /** The load in progress for `key` (cancelled or not: it still settles), to join it. */
  joinable(key: string): Promise<T> | undefined {
    return this.loading?.key === key ? this.loading.promise : undefined
  }

  /** Runs `op` after everything queued before it; its failure does not stop the chain. */
  enqueue<R>(op: () => Promise<R>): Promise<R> {
    this.queued++
    const run = this.chain.then(op).finally(() => {
      this.queued--
    })
    this.chain = run.catch(() => undefined)
    return run
  }

  /**
   * Cancels the load in progress and queues this one: `op` runs after what is queued, with the
   * signal a later load or unload aborts.
   */
  load(model: ModelEntry, key: string, op: (signal: AbortSignal) => Promise<T>): Promise<T> {
    this.cancel(new Cancelled(`replaced by a load of ${model.id}`))
    const controller = new AbortController()
    const promise = this.enqueue(() => op(controller.signal))
    const loading: QueuedLoad<T> = { model, key, controller, promise }
    this.loading = loading
    const clear = () => {
      if (this.loading === loading) this.loading = null
    }
    promise.then(clear, clear)
    return promise
  }

  /** Aborts the signal of the load in progress (if any) with `reason`. */
  cancel(reason: Cancelled): void {
    this.loading?.controller.abort(reason)
  }
}
