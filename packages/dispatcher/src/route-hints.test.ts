import type { IncomingMessage } from 'node:http'
import { defaultSlotConfig, type SlotConfig } from '@svc/core'
import { describe, expect, it } from 'vitest'
import { PROMPT_CHUNK, promptBlocks, routeHintsFor } from './route-hints'

const duo: SlotConfig = {
  ...defaultSlotConfig('primary')!,
  runtime: 'remote',
  urls: ['http://10.0.0.1:8080', 'http://10.0.0.2:8080'],
}
const req = (headers: Record<string, string>) => ({ headers }) as unknown as IncomingMessage
const turn = (system: string, n: number) => ({
  messages: [
    { role: 'system', content: system },
    ...Array.from({ length: n }, (_, i) => [
      { role: 'user', content: `question ${i}` },
      { role: 'assistant', content: `answer ${i}` },
    ]).flat(),
    { role: 'user', content: 'next' },
  ].slice(0, 2 * n + 2),
})

describe('route hints', () => {
  it("start a chat's next turn with its previous turn's blocks", () => {
    const one = promptBlocks('chat', turn('be brief', 0))!
    const two = promptBlocks('chat', turn('be brief', 1))!
    expect(two.blocks.slice(0, 1)).toEqual(one.blocks.slice(0, 1))
    expect(two.blocks).toHaveLength(4)
    expect(two.ends).toEqual([...two.ends].sort((a, b) => a - b))
    // Another system prompt: nothing in common, from the first block on.
    expect(promptBlocks('chat', turn('be long', 1))!.blocks[0]).not.toBe(one.blocks[0])
  })

  it('cut a completion prompt into fixed-size chunks', () => {
    const prompt = 'x'.repeat(PROMPT_CHUNK * 2 + 10)
    const short = promptBlocks('completions', { prompt: prompt.slice(0, PROMPT_CHUNK * 2) })!
    const long = promptBlocks('completions', { prompt })!
    expect(long.blocks).toHaveLength(3)
    expect(long.blocks.slice(0, 2)).toEqual(short.blocks)
    expect(long.ends.at(-1)).toBe(prompt.length)
  })

  it('read the session from the slot’s header, and are made only for a slot that routes by cache', () => {
    const body = turn('be brief', 0)
    expect(routeHintsFor(duo, 'chat', body, req({ 'x-session-id': 'abc' }))?.session).toBe('abc')
    const custom = { ...duo, routing: { ...duo.routing, sessionHeader: 'X-Conversation' } }
    expect(routeHintsFor(custom, 'chat', body, req({ 'x-conversation': 'c1' }))?.session).toBe('c1')
    expect(routeHintsFor(duo, 'embeddings', { input: 'x' }, req({}))).toBeUndefined()
    const leastLoaded = { ...duo, routing: { ...duo.routing, policy: 'least-loaded' as const } }
    expect(routeHintsFor(leastLoaded, 'chat', body, req({ 'x-session-id': 'abc' }))).toBeUndefined()
    const single = { ...duo, urls: ['http://10.0.0.1:8080'] }
    expect(routeHintsFor(single, 'chat', body, req({ 'x-session-id': 'abc' }))).toBeUndefined()
  })
})
