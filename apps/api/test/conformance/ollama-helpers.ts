/**
 * What the Ollama table's rows share: the `spare` slot's ref and state, a wait, the last line of an
 * NDJSON stream and `/api/show`'s request.
 */
import { expect } from 'vitest'
import type { ConformanceAnswer, ConformanceTarget } from './conformance'
import { PsResponseSchema, parsed, StreamPartSchema } from './ollama-shapes'

/** The ref the `spare` slot loads on request (`unload_after = "1h"`). */
export const SPARE = 'tiny-spare'
/** A slot that answers at once (a request's lease leaves it idle). */
export const LOADED = /^(ready|idle|serving)$/
export const hi = [{ role: 'user', content: 'Knock knock.' }]

/** A slot's state and model, as `GET /api/slots/{name}` says. */
export async function slot(
  target: ConformanceTarget,
  name: string,
): Promise<{ state: string; model: string | null }> {
  return (await (await fetch(`${target.url}/api/slots/${name}`)).json()) as {
    state: string
    model: string | null
  }
}

/** Whether `what` holds within `ms` (polled every 200 ms, once more at the deadline). */
export async function until(what: () => Promise<boolean>, ms: number): Promise<boolean> {
  const deadline = Date.now() + ms
  while (Date.now() < deadline) {
    if (await what()) return true
    await new Promise((r) => setTimeout(r, 200))
  }
  return what()
}

/** The last NDJSON line, and every line before it checked as a part of a stream. */
export function lastLine(answer: ConformanceAnswer) {
  expect(answer.status).toBe(200)
  expect(answer.headers.get('content-type')).toBe('application/x-ndjson')
  const lines = answer.events.map((e) => e.data)
  expect(lines.length).toBeGreaterThanOrEqual(2)
  for (const line of lines.slice(0, -1)) parsed(StreamPartSchema, line)
  return lines.at(-1)
}

/** When `/api/ps` says `tiny-spare` expires (it must be listed). */
export async function spareExpiresAt(target: ConformanceTarget): Promise<number> {
  const ps = parsed(PsResponseSchema, await (await fetch(`${target.url}/api/ps`)).json())
  const spare = ps.models.find((m) => m.name === `${SPARE}:latest`)
  expect(spare, 'tiny-spare in /api/ps').toBeDefined()
  return Date.parse(spare!.expires_at)
}

/** `/api/ps` says `tiny-spare` expires `ms` from now, give or take 10 s. */
export async function expectSpareExpiresIn(target: ConformanceTarget, ms: number): Promise<void> {
  const at = await spareExpiresAt(target)
  expect(at).toBeGreaterThan(Date.now() + ms - 10_000)
  expect(at).toBeLessThan(Date.now() + ms + 10_000)
}

/** `/api/show`'s request for `model`. */
export function show(model: string) {
  return { path: '/api/show', body: { model } }
}
