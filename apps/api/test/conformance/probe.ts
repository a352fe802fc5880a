/**
 * What a target's engine writes for the tables' one-message prompt, so a row can pick a stop string
 * that will surely be hit: greedy (temperature 0) generation is the same text every time, and every
 * surface renders "Knock knock." from the user into the same chat prompt. And what svc itself
 * counted of an answer (its token metric).
 */
import { expect } from 'vitest'
import type { ConformanceAnswer, ConformanceRequest, ConformanceRow, ConformanceTarget } from './conformance'

const texts = new Map<string, Promise<string>>()

/** The first `tokens` tokens the target's engine writes for the user's "Knock knock." (cached per target). */
export function greedyText(target: ConformanceTarget, tokens = 12): Promise<string> {
  const key = `${target.url} ${target.model} ${tokens}`
  let text = texts.get(key)
  if (!text) {
    text = (async () => {
      const res = await fetch(`${target.url}/v1/chat/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          model: target.model,
          messages: [{ role: 'user', content: 'Knock knock.' }],
          max_tokens: tokens,
          temperature: 0,
        }),
      })
      const body = (await res.json()) as { choices?: { message?: { content?: string } }[] }
      const content = body.choices?.[0]?.message?.content
      if (res.status !== 200 || typeof content !== 'string') {
        throw new Error(`the greedy probe answered ${res.status}: ${JSON.stringify(body)}`)
      }
      return content
    })()
    texts.set(key, text)
  }
  return text
}

/**
 * A stop string the greedy text will hit after its start: its first printable ASCII character
 * past the first (a whole character, never half of a multi-byte one).
 */
export function stopStringFrom(text: string): string {
  const chars = [...text]
  const at = chars.findIndex((c, i) => i >= 1 && /^[!-~]$/.test(c))
  if (at < 0) throw new Error(`no printable ASCII character to stop on in ${JSON.stringify(text)}`)
  return chars[at] as string
}

/** svc's own count of the completion tokens the target's slot answered (`svc_tokens_total`, /api/metrics). */
export async function completionTokensCounted(target: ConformanceTarget): Promise<number> {
  const text = await (await fetch(`${target.url}/api/metrics`)).text()
  const line = text
    .split('\n')
    .find((l) => l.startsWith(`svc_tokens_total{slot="${target.model}",kind="completion"}`))
  return line ? Number(line.split(' ').at(-1)) : 0
}

/**
 * A row's request and check that svc counted the answer's completion tokens (what quotas and the
 * usage ledger read): the count before is read when the request is made, the count after must have
 * grown by `tokens(answer)`.
 */
export function countedBy(
  request: ConformanceRequest,
  tokens: (answer: ConformanceAnswer) => number,
): Pick<ConformanceRow, 'request' | 'expect'> {
  let before = 0
  return {
    request: async (target) => {
      before = await completionTokensCounted(target)
      return request
    },
    expect: async (answer, target) => {
      expect(answer.status).toBe(200)
      expect((await completionTokensCounted(target)) - before).toBe(tokens(answer))
    },
  }
}
