/**
 * A Map that keeps at most `max` entries, dropping the least recently used one when full. `get` and
 * `set` count as use. Used for the replicas' prefix indexes and the session pins: memory stays
 * bounded whatever the traffic.
 */
export class LruMap<K, V> {
  private readonly map = new Map<K, V>()

  constructor(readonly max: number) {}

  get size(): number {
    return this.map.size
  }

  /** The value, now the most recently used; undefined when absent. */
  get(key: K): V | undefined {
    const value = this.map.get(key)
    if (value === undefined) return undefined
    this.map.delete(key)
    this.map.set(key, value)
    return value
  }

  /** Whether `key` is held, without counting as use. */
  has(key: K): boolean {
    return this.map.has(key)
  }

  set(key: K, value: V): void {
    this.map.delete(key)
    this.map.set(key, value)
    if (this.map.size > this.max) this.map.delete(this.map.keys().next().value as K)
  }

  delete(key: K): void {
    this.map.delete(key)
  }
}
