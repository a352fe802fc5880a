/**
 * A person's remaining allowance, read from the rate-limit headers the API sends on every answer to
 * a limited caller (`x-ratelimit-*`: OpenAI's per-minute trios and svc's `-tokens-day`). The chat
 * server names the person it asks for (`X-Svc-User`), so the API applies and reports that person's
 * quota (and the chat app's token's, the tighter of the two). Null when nothing is limited.
 */

export interface AllowancePart {
  limit: number
  remaining: number
  /** When it resets, as the API wrote it (`12s`, `3h2m0s`). */
  reset: string
}

export interface Allowance {
  requests?: AllowancePart
  tokens?: AllowancePart
  tokensDay?: AllowancePart
}

/** The header the API reads to count a token's request for a person as well. */
export const ON_BEHALF_HEADER = 'x-svc-user'

export function allowanceFrom(headers: Headers): Allowance | null {
  const part = (suffix: string): AllowancePart | undefined => {
    const limit = Number(headers.get(`x-ratelimit-limit-${suffix}`))
    const remaining = Number(headers.get(`x-ratelimit-remaining-${suffix}`))
    const reset = headers.get(`x-ratelimit-reset-${suffix}`) ?? ''
    return limit > 0 && Number.isFinite(remaining) ? { limit, remaining, reset } : undefined
  }
  const out: Allowance = {}
  const requests = part('requests')
  const tokens = part('tokens')
  const tokensDay = part('tokens-day')
  if (requests) out.requests = requests
  if (tokens) out.tokens = tokens
  if (tokensDay) out.tokensDay = tokensDay
  return requests || tokens || tokensDay ? out : null
}

/** The allowance after an answer that used `used` tokens (the headers were written before it ran). */
export function afterAnswer(allowance: Allowance | null, used: number): Allowance | null {
  if (!allowance || used <= 0) return allowance
  const less = (p?: AllowancePart) => p && { ...p, remaining: Math.max(0, p.remaining - used) }
  const out: Allowance = { ...allowance }
  if (allowance.tokens) out.tokens = less(allowance.tokens)!
  if (allowance.tokensDay) out.tokensDay = less(allowance.tokensDay)!
  return out
}
