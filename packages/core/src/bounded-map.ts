/**
 * Per-caller values made once and looked up on every request (meter keys, a caller's usage subject,
 * its header writer, its metric series, a limit's text): kept in a Map that is emptied when it reaches
 * `max` entries, so a stream of new callers or values cannot grow it without bound. Emptying, not
 * evicting one by one: what is dropped is made again on its next use, and the common case (a few
 * callers) never reaches the bound.
 */
export function remember<K, V>(map: Map<K, V>, key: K, value: V, max = 10_000): V {
  if (map.size >= max) map.clear()
  map.set(key, value)
  return value
}
