/**
 * What a live log tail sends next. A slot's log is a bounded ring of its last lines, read as whole
 * snapshots; `appendedLines` finds where the new snapshot continues the previous one (the longest
 * suffix of `prev` that `cur` starts with) and returns the lines after it. When nothing overlaps —
 * more lines arrived than the ring holds, the upstream restarted, or the last line was still being
 * written — it answers `reset` with the whole snapshot, and the client starts its view over.
 */
export function appendedLines(
  prev: readonly string[],
  cur: readonly string[],
): { lines: string[]; reset: boolean } {
  if (prev.length === 0) return { lines: [...cur], reset: false }
  for (let start = 0; start < prev.length; start++) {
    const overlap = prev.length - start
    if (overlap > cur.length) continue
    let same = true
    for (let i = 0; i < overlap; i++) {
      if (prev[start + i] !== cur[i]) {
        same = false
        break
      }
    }
    if (same) return { lines: cur.slice(overlap), reset: false }
  }
  return { lines: [...cur], reset: true }
}
