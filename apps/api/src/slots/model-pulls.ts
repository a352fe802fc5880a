/**
 * Pulls started from the Models page (`POST /api/models/:id/pull`): a model downloaded without
 * loading it. One pull per model at a time (a second request joins the first); progress and the
 * outcome are `model.pull` events on the bus. A slot that is loading the same model owns its own
 * pull: the routes refuse to start a second writer of the same `.part` file.
 */
import type { EventBus, ModelEntry, ModelPullEvent, SvcEvents } from '@svc/core'
import type { ModelStore } from '@svc/providers/models'

export interface ModelPulls {
  /** Starts (or joins) the pull of `entry`; resolves once it has started. */
  start(entry: ModelEntry): ModelPullEvent
  /** Cancels a running pull; false when none runs. The `.part` file stays, so a later pull resumes. */
  cancel(id: string): boolean
  /** The latest state of a running pull. */
  get(id: string): ModelPullEvent | undefined
  /** Cancels every pull (shutdown). */
  stop(): void
}

export function createModelPulls(options: {
  store: ModelStore
  bus: EventBus<SvcEvents>
  now?: () => number
}): ModelPulls {
  const now = options.now ?? Date.now
  const running = new Map<string, { controller: AbortController; last: ModelPullEvent }>()
  const publish = (event: ModelPullEvent) => options.bus.emit('model.pull', event)

  return {
    start(entry) {
      const existing = running.get(entry.id)
      if (existing) return existing.last
      const controller = new AbortController()
      const job = {
        controller,
        last: {
          model: entry.id,
          status: 'pulling',
          done: 0,
          total: entry.size ?? null,
          at: now(),
        } as ModelPullEvent,
      }
      running.set(entry.id, job)
      publish(job.last)
      options.store
        .pull(
          entry,
          (p) => {
            job.last = { model: entry.id, status: 'pulling', done: p.done, total: p.total, at: now() }
            publish(job.last)
          },
          controller.signal,
        )
        .then(
          (pulled) => {
            publish({
              model: entry.id,
              status: 'done',
              done: pulled.size ?? job.last.done,
              total: pulled.size ?? job.last.total,
              at: now(),
            })
          },
          (error: unknown) => {
            const cancelled = controller.signal.aborted
            publish({
              ...job.last,
              status: cancelled ? 'cancelled' : 'failed',
              at: now(),
              ...(cancelled ? {} : { error: error instanceof Error ? error.message : String(error) }),
            })
          },
        )
        .finally(() => running.delete(entry.id))
      return job.last
    },
    cancel(id) {
      const job = running.get(id)
      job?.controller.abort(new Error('cancelled'))
      return job !== undefined
    },
    get: (id) => running.get(id)?.last,
    stop() {
      for (const job of running.values()) job.controller.abort(new Error('svc is stopping'))
    },
  }
}
