/**
 * Slot lifecycle as pure data (docs/architecture.md, "The slot lifecycle").
 *
 * `SLOT_TRANSITIONS` is the table; `canTransition` answers whether a move is allowed and
 * `nextState` whether an event is accepted in a state. The SlotManager consults these before every
 * change, so a refused move is a bug surfaced as a value, never a silent state corruption.
 */

export const SLOT_STATES = [
  'offline',
  'pulling',
  'starting',
  'warming',
  'ready',
  'serving',
  'idle',
  'unloading',
] as const
export type SlotState = (typeof SLOT_STATES)[number]

export const SLOT_EVENTS = [
  'load',
  'pull-done',
  'pull-failed',
  'runtime-started',
  'runtime-failed',
  'health-ok',
  'health-failed',
  'lease',
  'last-release',
  'unload',
  'runtime-stopped',
  'upstream-exited',
] as const
export type SlotEvent = (typeof SLOT_EVENTS)[number]

export interface SlotTransition {
  readonly from: SlotState
  readonly event: SlotEvent
  readonly to: SlotState
  readonly note: string
}

/** States in which an upstream may be running (a crash moves them to `offline`). */
export const RUNNING_STATES = [
  'starting',
  'warming',
  'ready',
  'serving',
  'idle',
] as const satisfies readonly SlotState[]
/** States in which the slot accepts new request leases. */
export const LEASABLE_STATES = ['ready', 'serving', 'idle'] as const satisfies readonly SlotState[]
/** States from which a request waits for `ready` instead of failing. */
export const PENDING_STATES = ['pulling', 'starting', 'warming'] as const satisfies readonly SlotState[]

const t = (from: SlotState, event: SlotEvent, to: SlotState, note = ''): SlotTransition => ({
  from,
  event,
  to,
  note,
})

export const SLOT_TRANSITIONS: readonly SlotTransition[] = [
  t('offline', 'load', 'pulling', 'image or model file missing; progress is published'),
  t('offline', 'load', 'starting', 'everything already on disk'),
  t('pulling', 'pull-done', 'starting'),
  t('pulling', 'pull-failed', 'offline', 'failure keeps lastError'),
  t('starting', 'runtime-started', 'warming'),
  t('starting', 'runtime-failed', 'offline'),
  t('warming', 'health-ok', 'ready'),
  t('warming', 'health-failed', 'offline', 'health deadline passed'),
  t('ready', 'lease', 'serving'),
  t('idle', 'lease', 'serving'),
  t('serving', 'last-release', 'idle'),
  t('ready', 'unload', 'unloading', 'new requests refused; in-flight drained up to a grace period'),
  t('serving', 'unload', 'unloading', 'new requests refused; in-flight drained up to a grace period'),
  t('idle', 'unload', 'unloading'),
  // A swap or a cancel may interrupt a load that has not reached ready yet.
  t('pulling', 'unload', 'unloading', 'cancels the pull'),
  t('starting', 'unload', 'unloading', 'cancels the start'),
  t('warming', 'unload', 'unloading', 'cancels warming'),
  t('unloading', 'runtime-stopped', 'offline'),
  ...RUNNING_STATES.map((from) =>
    t(from, 'upstream-exited', 'offline', 'in-flight requests get 502; restart policy may load again'),
  ),
]

const allowedPairs = new Set(SLOT_TRANSITIONS.map((x) => `${x.from}>${x.to}`))

/** Whether the table has any transition from `from` to `to`. */
export function canTransition(from: SlotState, to: SlotState): boolean {
  return allowedPairs.has(`${from}>${to}`)
}

/**
 * The states `event` may lead to from `from` (empty when the event is refused there).
 * `load` from `offline` has two outcomes; the manager picks by whether a pull is needed.
 */
export function nextStates(from: SlotState, event: SlotEvent): SlotState[] {
  return SLOT_TRANSITIONS.filter((x) => x.from === from && x.event === event).map((x) => x.to)
}

export function isSlotState(value: unknown): value is SlotState {
  return typeof value === 'string' && (SLOT_STATES as readonly string[]).includes(value)
}
