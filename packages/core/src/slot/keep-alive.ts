/**
 * A client's say in how long a model stays loaded (Ollama's `keep_alive`), as an override of the
 * slot's idle unload (`unload_after`) that holds only while the slot holds that very model: a swap
 * or an unload forgets it. `pinned` still wins (a pinned slot never unloads by itself).
 */

/** Milliseconds without a request before the slot unloads; 0 = as soon as it is idle; Infinity = never. */
export type KeepAliveMs = number

export interface IdlePolicy {
  /** ms; 0 never (the `unload_after` convention of `watchIdle`). */
  unloadAfterMs: number
  pinned: boolean
}

export class KeepAlives {
  private readonly overrides = new Map<string, { model: string; ms: KeepAliveMs }>()

  /** Sets (or, with null, clears) slot `slot`'s override while it holds `model`. */
  set(slot: string, model: string, ms: KeepAliveMs | null): void {
    if (ms === null) this.overrides.delete(slot)
    else this.overrides.set(slot, { model, ms })
  }

  /**
   * The idle policy of `slot` holding `current`: its override when it was set for that model, else
   * `own`. An override of 0 becomes 1 ms (the timer fires once the slot is idle; 0 would mean never).
   */
  policy(slot: string, current: string | undefined, own: IdlePolicy): IdlePolicy {
    const override = this.overrides.get(slot)
    if (!override || own.pinned) return own
    if (override.model !== current) {
      this.overrides.delete(slot)
      return own
    }
    if (override.ms === Number.POSITIVE_INFINITY) return { unloadAfterMs: 0, pinned: false }
    return { unloadAfterMs: Math.max(1, override.ms), pinned: false }
  }

  /** The override in force for `slot` holding `current` (ms, Infinity), or undefined. */
  get(slot: string, current: string | undefined): KeepAliveMs | undefined {
    const override = this.overrides.get(slot)
    return override && override.model === current ? override.ms : undefined
  }
}
