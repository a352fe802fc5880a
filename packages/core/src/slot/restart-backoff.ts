/**
 * A slot's restart policy after a crash: `restart = "on-failure"` loads the model again after 1 s,
 * 2 s, 4 s … (capped), at most `max_restarts` times in a row; an upstream that ran long enough
 * before crashing starts the count afresh. Each scheduled attempt is a `slot.restart` event.
 */

import type { Clock } from '../clock'
import type { EventBus } from '../event-bus'
import type { SvcEvents } from '../events'
import type { ModelEntry } from '../models'
import type { SlotConfig } from '../slot-config'

export interface RestartBackoffOptions {
  slot: string
  bus: EventBus<SvcEvents>
  clock: Clock
  baseDelayMs: number
  maxDelayMs: number
  /** An upstream that ran this long before crashing starts the count afresh (ms). */
  resetMs: number
}

export class RestartBackoff {
  /** Attempts in a row so far. */
  count = 0
  private timer: AbortController | null = null
  /** The model a scheduled attempt brings back. */
  model: ModelEntry | null = null

  constructor(private readonly o: RestartBackoffOptions) {}

  get pending(): boolean {
    return this.timer !== null
  }

  /** A load someone asked for (not a restart): the count starts afresh. */
  reset(): void {
    this.count = 0
  }

  /**
   * The upstream of `model` crashed after running `ranMs`: schedules `relaunch(model)` when the
   * slot's policy says so (a long run first resets the count).
   */
  afterCrash(
    model: ModelEntry,
    ranMs: number,
    config: SlotConfig,
    relaunch: (model: ModelEntry) => Promise<unknown>,
  ): void {
    if (ranMs >= this.o.resetMs) this.count = 0
    this.schedule(model, config, relaunch)
  }

  /** Schedules `relaunch(model)` unless the policy says no; a failed relaunch schedules the next. */
  schedule(model: ModelEntry, config: SlotConfig, relaunch: (model: ModelEntry) => Promise<unknown>): void {
    if (config.restart !== 'on-failure' || this.count >= config.maxRestarts) return
    const attempt = ++this.count
    const delayMs = Math.min(this.o.baseDelayMs * 2 ** (attempt - 1), this.o.maxDelayMs)
    const timer = new AbortController()
    this.timer = timer
    this.model = model
    this.o.bus.emit('slot.restart', {
      slot: this.o.slot,
      model: model.id,
      attempt,
      delayMs,
      at: this.o.clock.now(),
    })
    this.o.clock.sleep(delayMs, timer.signal).then(
      () => {
        if (this.timer !== timer) return
        this.timer = null
        this.model = null
        relaunch(model).catch(() => this.schedule(model, config, relaunch))
      },
      () => undefined,
    )
  }

  cancel(): void {
    this.timer?.abort()
    this.timer = null
    this.model = null
  }
}
