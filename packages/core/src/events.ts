/**
 * Events on the bus (DESIGN.md: "Every transition is an event on the bus: the dashboard (SSE),
 * metrics and logs all read the same events").
 */
import type { ModelPullEvent, SlotMetricsEvent } from './api-events'
import type { PullProgress } from './models'
import type { SlotState } from './slot-states'
import type { SlotConfigEvent } from './slot-status'

export interface SlotTransitionEvent {
  slot: string
  from: SlotState
  to: SlotState
  /** The model the slot is loading / holding / unloading (null when none). */
  model: string | null
  /** Epoch ms. */
  at: number
  /** Set when the transition is a failure (`offline` after a crash, a failed pull or start). */
  error?: string
}

export interface SlotProgressEvent extends PullProgress {
  slot: string
  model: string
  at: number
}

export interface SlotRestartEvent {
  slot: string
  model: string
  attempt: number
  delayMs: number
  at: number
}

/**
 * A slot's replicas changed: one left or joined the set, or went in or out of rotation. No URLs (they
 * are admin-only; `GET /api/slots/:slot` has them); in-flight counts and latency are in the status.
 */
export interface SlotReplicasEvent {
  slot: string
  at: number
  replicas: { id: string; node: string | null; healthy: boolean; error: string | null }[]
}

export interface SvcEvents {
  'slot.transition': SlotTransitionEvent
  'slot.progress': SlotProgressEvent
  'slot.restart': SlotRestartEvent
  'slot.config': SlotConfigEvent
  'slot.replicas': SlotReplicasEvent
  'slot.metrics': SlotMetricsEvent
  'model.pull': ModelPullEvent
  [type: string]: unknown
}

/** Time, injected so lifecycle tests control it. */
export interface Clock {
  now(): number
  /** Resolves after `ms`; rejects with the signal's reason when it aborts. */
  sleep(ms: number, signal?: AbortSignal): Promise<void>
}

export const systemClock: Clock = {
  now: () => Date.now(),
  sleep: (ms, signal) =>
    new Promise((resolve, reject) => {
      if (signal?.aborted) return reject(signal.reason)
      const timer = setTimeout(() => {
        signal?.removeEventListener('abort', onAbort)
        resolve()
      }, ms)
      const onAbort = () => {
        clearTimeout(timer)
        reject(signal?.reason)
      }
      signal?.addEventListener('abort', onAbort, { once: true })
    }),
}
