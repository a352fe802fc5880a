/**
 * Slot lifecycle as pure data (docs/architecture.md, "The slot lifecycle").
 *
 * `SLOT_TRANSITIONS` is the table; `canTransition` answers whether a move is allowed. The slot's
 * owner consults it before every change, so a refused move is a bug surfaced as a value, never a
 * silent state corruption.
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

/**
 * One allowed move. `why` says what causes it (the events of the table in docs/architecture.md): it
 * documents the move; the owner of the slot checks only `from` → `to` (`canTransition`).
 */
export interface SlotTransition {
  readonly from: SlotState
  readonly to: SlotState
  readonly why: string
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

const t = (from: SlotState, to: SlotState, why: string): SlotTransition => ({ from, to, why })

export const SLOT_TRANSITIONS: readonly SlotTransition[] = [
  t('offline', 'pulling', 'load: image or model file missing; progress is published'),
  t('offline', 'starting', 'load: everything already on disk'),
  t('pulling', 'starting', 'pull done'),
  t('pulling', 'offline', 'pull failed; the failure stays in lastError'),
  t('starting', 'warming', 'runtime started'),
  t('starting', 'offline', 'runtime failed to start'),
  t('warming', 'ready', 'health probe succeeded'),
  t('warming', 'offline', 'health deadline passed'),
  t('ready', 'serving', 'a request lease taken'),
  t('idle', 'serving', 'a request lease taken'),
  t('serving', 'idle', 'the last lease released'),
  t('ready', 'unloading', 'unload: new requests refused; in-flight drained up to a grace period'),
  t('serving', 'unloading', 'unload: new requests refused; in-flight drained up to a grace period'),
  t('idle', 'unloading', 'unload'),
  // A swap or a cancel may interrupt a load that has not reached ready yet.
  t('pulling', 'unloading', 'unload: cancels the pull'),
  t('starting', 'unloading', 'unload: cancels the start'),
  t('warming', 'unloading', 'unload: cancels warming'),
  t('unloading', 'offline', 'runtime stopped'),
  ...RUNNING_STATES.map((from) =>
    t(from, 'offline', 'upstream exited: in-flight requests get 502; restart policy may load again'),
  ),
]

const allowedPairs = new Set(SLOT_TRANSITIONS.map((move) => `${move.from}>${move.to}`))

/** Whether the table has any transition from `from` to `to`. */
export function canTransition(from: SlotState, to: SlotState): boolean {
  return allowedPairs.has(`${from}>${to}`)
}

export function isSlotState(value: unknown): value is SlotState {
  return typeof value === 'string' && (SLOT_STATES as readonly string[]).includes(value)
}
