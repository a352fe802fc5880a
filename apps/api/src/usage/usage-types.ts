/** The counters the usage ledger keeps per period, as the API names them. */
export const USAGE_COLUMNS = [
  'requests',
  'prompt_tokens',
  'completion_tokens',
  'audio_seconds',
  'characters',
  'images',
] as const

export type Counters = Record<(typeof USAGE_COLUMNS)[number], number>

export function zeroCounters(): Counters {
  return { requests: 0, prompt_tokens: 0, completion_tokens: 0, audio_seconds: 0, characters: 0, images: 0 }
}

export function addCounters(into: Counters, from: Counters): void {
  for (const c of USAGE_COLUMNS) into[c] += from[c]
}
