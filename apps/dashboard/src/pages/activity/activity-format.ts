/** How the Activity page words a request's figures (pure, so they are tested beside). */
import type { ActivityEntry } from './activity-feed'

const DASH = '—'

/** `840 ms`, `1.3 s`, `2 min 5 s`; a dash when unknown. */
export function duration(ms: number | null | undefined): string {
  if (ms === null || ms === undefined || !Number.isFinite(ms)) return DASH
  if (ms < 1000) return `${Math.round(ms)} ms`
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`
  const s = Math.round(ms / 1000)
  return `${Math.floor(s / 60)} min ${s % 60} s`
}

/** A count with thousands separators; a dash when unknown. */
export function count(n: number | null | undefined): string {
  return n === null || n === undefined ? DASH : n.toLocaleString('en')
}

/** Tokens per second, one decimal; a dash when unknown. */
export function speed(n: number | null | undefined): string {
  return n === null || n === undefined ? DASH : n.toFixed(1)
}

/** Who sent it, as a person reads it: the token's label, the person, the token id, or nobody. */
export function callerName(entry: Pick<ActivityEntry, 'caller'>): string {
  const c = entry.caller
  if (!c) return 'anyone'
  if (c.label && c.identity) return `${c.label} for ${c.identity}`
  return c.label ?? c.identity ?? c.token_id ?? 'anyone'
}

/** The model, else the slot, else a dash (a request refused before it named anything). */
export function modelName(entry: Pick<ActivityEntry, 'model' | 'slot'>): string {
  return entry.model ?? entry.slot ?? DASH
}

const OUTCOME_WORDS: Record<string, string> = {
  'client-gone': 'client left',
  'upstream-died': 'upstream died',
}

/** `200`, `404`, `499 client left`, `live`. */
export function statusText(entry: Pick<ActivityEntry, 'live' | 'status' | 'outcome'>): string {
  if (entry.live) return 'live'
  const words = entry.outcome ? OUTCOME_WORDS[entry.outcome] : undefined
  return words ? `${entry.status ?? ''} ${words}`.trim() : String(entry.status ?? DASH)
}

/** Wall-clock time of day the request came (`14:03:27`). */
export function timeOfDay(at: number): string {
  return new Date(at).toLocaleTimeString('en-GB', { hour12: false })
}

/** Surfaces in people's words. */
export const SURFACE_WORDS: Record<string, string> = {
  chat: 'chat',
  completions: 'completions',
  responses: 'responses',
  messages: 'messages',
  embeddings: 'embeddings',
  rerank: 'rerank',
  transcription: 'transcription',
  speech: 'speech',
  images: 'images',
  ollama: 'Ollama',
  other: 'other',
}
