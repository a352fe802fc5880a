/**
 * The events of `GET /api/events`, defined once: the SSE route emits exactly these (event name =
 * key, data = JSON of the value) and the dashboard's client parses them with the same type.
 *
 * - `snapshot` opens every connection; `resync` replaces the whole state when a client fell behind
 *   (same shape: a client treats both alike, clearing what it had).
 * - The slot events are bus events (`SvcEvents`) forwarded as they happen.
 * - `slot.metrics` is published every few seconds while something changed: live figures per slot.
 * - `slot.added` / `slot.removed`: a spare slot (`primary-2`) opened or went; a client adds or
 *   drops its card.
 * - `model.pull` reports a pull started from the Models page (no slot involved).
 * - `slot.config` reports a slot file changed while svc runs: applied (`ok`), or refused (then the
 *   slot keeps its config and its `configError` says why).
 * - A client more than 256 events behind gets `resync` instead of the events it missed.
 */
import type { SvcEvents } from './events'
import type { SlotFacts, SlotStatus } from './slot-status'

export interface SlotsSnapshotEvent {
  /** Each slot's status with the API's facts about it (`serves`, `runnable`, `memory`, `context_size`). */
  slots: (SlotStatus & Partial<SlotFacts>)[]
}

/** The bus events the SSE route forwards as they are (the rest it builds itself). */
export const FORWARDED_EVENTS = [
  'slot.transition',
  'slot.progress',
  'slot.restart',
  'slot.config',
  'slot.replicas',
  'slot.metrics',
  'model.pull',
  'slot.auto',
  'slot.queue',
  'slot.added',
  'slot.removed',
] as const

/** Every event of `GET /api/events`, by name: the two whole-state events, and the forwarded bus events. */
export interface ApiEvents extends Pick<SvcEvents, (typeof FORWARDED_EVENTS)[number]> {
  snapshot: SlotsSnapshotEvent
  resync: SlotsSnapshotEvent
}

export type ApiEventName = keyof ApiEvents
