import type { Allowance } from '../server/upstream/allowance'

const n = (v: number) => v.toLocaleString('en')

/** `12,345 of 200,000 tokens left today (resets in 3h2m0s) · 4 of 5 requests left this minute` */
export function allowanceText(a: Allowance | null): string | null {
  if (!a) return null
  const parts: string[] = []
  if (a.tokensDay)
    parts.push(
      `${n(a.tokensDay.remaining)} of ${n(a.tokensDay.limit)} tokens left today (resets in ${a.tokensDay.reset})`,
    )
  if (a.tokens) parts.push(`${n(a.tokens.remaining)} of ${n(a.tokens.limit)} tokens left this minute`)
  if (a.requests) parts.push(`${n(a.requests.remaining)} of ${n(a.requests.limit)} requests left this minute`)
  return parts.length ? parts.join(' · ') : null
}
