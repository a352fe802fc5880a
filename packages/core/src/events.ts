/**
 * Events on the bus. Every transition is an event on the bus: the dashboard (SSE), metrics and logs
 * all read the same events (docs/architecture.md, "The slot lifecycle").
 */
import type { ModelPullEvent } from './model-pull-event'
import type { PullProgress } from './models'
import type { SlotMetricsEvent } from './slot-metrics'
import type { SlotState } from './slot-states'

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

/** Why svc loaded or unloaded a slot on its own (`slot.auto`). */
export const AUTO_REASONS = ['request', 'idle', 'memory'] as const
export type AutoReason = (typeof AUTO_REASONS)[number]

/**
 * svc loaded, unloaded or evicted a slot on its own: a request named a model no slot held
 * (`request`), nobody used it for `unload_after` (`idle`), another slot's load needed its memory
 * (`memory`, with `for`: the slot that loads).
 */
export interface SlotAutoEvent {
  slot: string
  action: 'load' | 'unload'
  reason: AutoReason
  model: string | null
  /** `memory` only: the slot whose load needed the room. */
  for?: string
  at: number
}

/** A slot's request queue changed: how many wait, and since when the oldest does (clock ms). */
export interface SlotQueueEvent {
  slot: string
  depth: number
  oldestSince: number | null
  at: number
}

/** `slot.config`: a slot config file changed while svc runs; applied (`ok`) or refused. */
export interface SlotConfigEvent {
  slot: string
  file: string
  ok: boolean
  error: { field: string | null; expected: string; message: string } | null
  /** Epoch ms. */
  at: number
}

/**
 * `slot.added`: svc opened a slot by itself, a spare beside a slot that loads on request
 * (`primary-2`: docs/self-managing-slots.md, "Spare slots"). It starts offline; its transitions follow.
 */
export interface SlotAddedEvent {
  slot: string
  /** The slot it is a spare of. */
  spare_of: string
  provider: string
  backend: string | null
  runtime: string | null
  /** Epoch ms. */
  at: number
}

/** `slot.removed`: a spare slot went (idle, evicted for memory, or its load failed); drop its card. */
export interface SlotRemovedEvent {
  slot: string
  spare_of: string
  at: number
}

/**
 * `upstream.stopping`: a slot's upstream (every replica of it) is about to be stopped, its requests
 * drained. Inside svc only (never on `/api/events`: the origins are admin-only): the dispatcher closes
 * its idle connections to them, which an engine's shutdown would otherwise wait on.
 */
export interface UpstreamStoppingEvent {
  slot: string
  /** The origins requests went to (`http://127.0.0.1:41234`). */
  origins: string[]
}

export interface SvcEvents {
  'slot.transition': SlotTransitionEvent
  'slot.progress': SlotProgressEvent
  'slot.restart': SlotRestartEvent
  'slot.config': SlotConfigEvent
  'slot.replicas': SlotReplicasEvent
  'slot.metrics': SlotMetricsEvent
  'model.pull': ModelPullEvent
  'slot.auto': SlotAutoEvent
  'slot.queue': SlotQueueEvent
  'slot.added': SlotAddedEvent
  'slot.removed': SlotRemovedEvent
  'upstream.stopping': UpstreamStoppingEvent
  [type: string]: unknown
}
