/** The port through which a slot's load asks to be let in: the memory budget (`apps/api`). */
import type { ModelEntry } from '../models'
import type { SlotConfig } from '../slot-config'
import type { Slot } from './slot'

/** A load asking to be let in (see `LoadAdmission`). */
export interface AdmissionRequest {
  slot: Slot
  config: SlotConfig
  model: ModelEntry
  /**
   * A spare slot's load (`spare-plan.ts`): start it only when the device's budget is known and the
   * model fits beside everything loaded, evicting nothing; else refuse with `memory.insufficient`.
   */
  beside?: boolean
  /** Starts the load. Call it once, synchronously after the last check. */
  start(): void
}

/**
 * Decides whether a load may start now (the memory budget): it may unload other slots first, then
 * calls `start` and resolves, or rejects to refuse. Loads of the model a slot already holds skip it.
 */
export interface LoadAdmission {
  admit(request: AdmissionRequest): Promise<void>
  /**
   * Whether `model`, loaded by a slot with `config`, would fit beside everything loaded now without
   * evicting anything; null when the budget is unknown (then no spare slot opens). Without it, no
   * spare slot ever opens.
   */
  roomBeside?(request: { config: SlotConfig; model: ModelEntry }): Promise<boolean | null>
}
