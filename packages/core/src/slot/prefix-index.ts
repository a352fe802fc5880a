/**
 * What one replica probably holds in its KV cache, as svc saw it: the prompt blocks svc sent it
 * (`RouteHints.blocks`, chained hashes, so one hash stands for a whole prefix). Approximate on
 * purpose: the engine evicts on its own and svc never sees its answer, but a prompt that went to a
 * replica a moment ago is the best guess of where its next turn is cheap. Bounded: the least recently
 * sent hashes go first.
 */
import { LruMap } from './lru-map'

/** Prefix hashes remembered per replica by default (a few hundred conversations of a few dozen turns). */
export const PREFIX_INDEX_CAPACITY = 8_192

export class PrefixIndex {
  private readonly held: LruMap<number, true>

  constructor(capacity = PREFIX_INDEX_CAPACITY) {
    this.held = new LruMap(capacity)
  }

  /**
   * How many leading blocks of `blocks` this replica holds: the longest prefix whose (chained) hash
   * was sent to it. 0 when none.
   */
  match(blocks: readonly number[]): number {
    // From the end: a chained hash stands for its whole prefix, even when an earlier hash of the same
    // prompt was evicted first (they are recorded in order, so the first is the oldest).
    for (let i = blocks.length - 1; i >= 0; i--) if (this.held.has(blocks[i]!)) return i + 1
    return 0
  }

  /** Notes that `blocks` were sent to this replica (each now the most recently used). */
  record(blocks: readonly number[]): void {
    for (const hash of blocks) this.held.set(hash, true)
  }

  get size(): number {
    return this.held.size
  }
}
