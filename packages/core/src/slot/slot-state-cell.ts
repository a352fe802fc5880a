/**
 * What a slot shows about itself (its state, since when, the model it holds, its last error and a
 * pull's progress) and the one way its state changes: `transition`, checked against the lifecycle
 * table (`SLOT_TRANSITIONS`) and published as a `slot.transition` event.
 */

import type { Clock } from '../clock'
import type { EventBus } from '../event-bus'
import type { SvcEvents } from '../events'
import type { ModelEntry, PullProgress } from '../models'
import { canTransition, type SlotState } from '../slot-states'

export interface SlotStateCellOptions {
  slot: string
  bus: EventBus<SvcEvents>
  clock: Clock
}

export class SlotStateCell {
  private current: SlotState = 'offline'
  private changedAt: number
  /** The model loaded, loading or unloading; null when offline. */
  model: ModelEntry | null = null
  lastError: string | null = null
  /** A pull's progress while `pulling`. */
  progress: PullProgress | null = null

  constructor(private readonly o: SlotStateCellOptions) {
    this.changedAt = o.clock.now()
  }

  /** Forgets the last error (an unload of the offline slot it left behind answers it; a load starts afresh). */
  forgetError(): void {
    this.lastError = null
  }

  get state(): SlotState {
    return this.current
  }

  /** Epoch ms of the last transition (or of the slot's creation). */
  get since(): number {
    return this.changedAt
  }

  /** Whether the state is one of `states`. */
  in(states: readonly SlotState[]): boolean {
    return states.includes(this.current)
  }

  /**
   * Moves to `to` and publishes it (`error` when the move is a failure). A move the table does not
   * have throws: it is a bug in the slot owner, never a state to live with.
   */
  transition(to: SlotState, error?: string): void {
    const from = this.current
    if (!canTransition(from, to)) {
      throw new Error(`slot ${this.o.slot}: refused transition ${from} -> ${to} (a bug in the slot owner)`)
    }
    this.current = to
    this.changedAt = this.o.clock.now()
    this.o.bus.emit('slot.transition', {
      slot: this.o.slot,
      from,
      to,
      model: this.model?.id ?? null,
      at: this.changedAt,
      ...(error ? { error } : {}),
    })
  }

  /** Records and publishes a pull's progress (`slot.progress`). */
  publishProgress(model: ModelEntry, p: PullProgress): void {
    this.progress = p
    this.o.bus.emit('slot.progress', { slot: this.o.slot, model: model.id, ...p, at: this.o.clock.now() })
  }
}
