/**
 * The dashboard's live state, fed by `/api/events` (ApiEvents, the same types the server emits).
 * Pure: `applyEvent` is a reducer, so the rules (a snapshot or resync replaces everything; events
 * update one slot) are tested without a network.
 */
import type { ApiEventName, ApiEvents, ModelPullEvent, SlotLiveMetrics, SlotSnapshot } from '@svc/core'

export interface SlotQueue {
  depth: number
  oldestSince: number | null
}

export type Connection = 'connecting' | 'open' | 'reconnecting' | 'unauthorized'

export interface LiveState {
  connection: Connection
  /** Slots in the server's order. */
  slots: SlotSnapshot[]
  metrics: Record<string, SlotLiveMetrics>
  pulls: Record<string, ModelPullEvent>
  /** Each slot's request queue: how many wait, since when the oldest does (epoch ms). */
  queues: Record<string, SlotQueue>
  /** Bumped on every snapshot (reconnects included): views that fetched extra data refetch it. */
  generation: number
}

export const INITIAL: LiveState = {
  connection: 'connecting',
  slots: [],
  metrics: {},
  pulls: {},
  queues: {},
  generation: 0,
}

const NAMES = new Set<string>([
  'snapshot',
  'resync',
  'slot.transition',
  'slot.progress',
  'slot.restart',
  'slot.metrics',
  'model.pull',
  'slot.queue',
  'slot.added',
  'slot.removed',
] satisfies ApiEventName[])

export function isApiEvent(name: string): name is ApiEventName {
  return NAMES.has(name)
}

function updateSlot(state: LiveState, name: string, change: (s: SlotSnapshot) => SlotSnapshot): LiveState {
  if (!state.slots.some((s) => s.name === name)) return state
  return { ...state, slots: state.slots.map((s) => (s.name === name ? change(s) : s)) }
}

export function applyEvent<K extends ApiEventName>(state: LiveState, name: K, data: ApiEvents[K]): LiveState {
  switch (name) {
    case 'snapshot':
    case 'resync': {
      const d = data as ApiEvents['snapshot']
      const queues = Object.fromEntries(
        d.slots.map((s) => [s.name, s.queue ?? { depth: 0, oldestSince: null }]),
      )
      return { ...state, slots: d.slots, queues, generation: state.generation + 1 }
    }
    case 'slot.transition': {
      const e = data as ApiEvents['slot.transition']
      return updateSlot(state, e.slot, (s) => ({
        ...s,
        state: e.to,
        model: e.to === 'offline' ? null : e.model,
        since: e.at,
        inflight:
          e.to === 'idle' || e.to === 'offline'
            ? 0
            : e.to === 'serving'
              ? Math.max(1, s.inflight)
              : s.inflight,
        progress: e.to === 'pulling' ? s.progress : null,
        // A new load starts clean; a load that reached ready and an unload clear it (as the API does).
        lastError:
          e.error ?? (e.from === 'offline' || e.to === 'ready' || e.to === 'unloading' ? null : s.lastError),
      }))
    }
    case 'slot.progress': {
      const e = data as ApiEvents['slot.progress']
      return updateSlot(state, e.slot, (s) => ({ ...s, progress: { done: e.done, total: e.total } }))
    }
    case 'slot.restart': {
      const e = data as ApiEvents['slot.restart']
      return updateSlot(state, e.slot, (s) => ({ ...s, restarts: e.attempt }))
    }
    case 'slot.metrics':
      return { ...state, metrics: (data as ApiEvents['slot.metrics']).slots }
    case 'slot.queue': {
      const e = data as ApiEvents['slot.queue']
      return {
        ...state,
        queues: { ...state.queues, [e.slot]: { depth: e.depth, oldestSince: e.oldestSince } },
      }
    }
    case 'slot.added': {
      // A spare slot (primary-2) opened beside its parent: its card follows the parent's family.
      const e = data as ApiEvents['slot.added']
      if (state.slots.some((s) => s.name === e.slot)) return state
      const card: SlotSnapshot & { spare_of: string } = {
        name: e.slot,
        provider: e.provider,
        backend: e.backend,
        runtime: e.runtime,
        state: 'offline',
        model: null,
        inflight: 0,
        lastError: null,
        since: e.at,
        progress: null,
        restarts: 0,
        upstream: null,
        replicas: null,
        spare_of: e.spare_of,
      }
      const family = (s: SlotSnapshot) =>
        s.name === e.spare_of || (s as { spare_of?: string | null }).spare_of === e.spare_of
      const last = state.slots.findLastIndex(family)
      const slots = [...state.slots]
      slots.splice(last < 0 ? slots.length : last + 1, 0, card)
      return { ...state, slots }
    }
    case 'slot.removed': {
      const e = data as ApiEvents['slot.removed']
      const { [e.slot]: _gone, ...queues } = state.queues
      return { ...state, slots: state.slots.filter((s) => s.name !== e.slot), queues }
    }
    case 'model.pull': {
      const e = data as ApiEvents['model.pull']
      return { ...state, pulls: { ...state.pulls, [e.model]: e } }
    }
    default:
      return state
  }
}
