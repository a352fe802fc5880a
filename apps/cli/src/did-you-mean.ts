import { distance } from 'fastest-levenshtein'

/**
 * The candidate closest to `input` by edit distance (case-insensitive), when it is near enough to be
 * a typo: at most 2 edits, or a third of the input's length for long names (`qwen3-0.6b-q8` →
 * `qwen3-0.6b-q8_0`). A candidate that starts with `input` (at least 3 characters) counts as near.
 * Undefined when nothing is close, or when `input` is itself a candidate.
 */
export function didYouMean(input: string, candidates: Iterable<string>): string | undefined {
  const wanted = input.toLowerCase()
  const limit = Math.max(2, Math.floor(wanted.length / 3))
  let best: { name: string; d: number } | undefined
  for (const name of candidates) {
    const lower = name.toLowerCase()
    if (name === input) return undefined
    const d = wanted.length >= 3 && lower.startsWith(wanted) ? 1 : distance(wanted, lower)
    if (d <= limit && (!best || d < best.d)) best = { name, d }
  }
  return best?.name
}

/** ` (did you mean "ls"?)`, or '' when nothing is close; `quote: false` for options (`--model`). */
export function suggestion(input: string, candidates: Iterable<string>, quote = true): string {
  const near = didYouMean(input, candidates)
  if (near === undefined) return ''
  return quote ? ` (did you mean "${near}"?)` : ` (did you mean ${near}?)`
}
