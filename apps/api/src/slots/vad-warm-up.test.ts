import { createEventBus, type SvcEvents } from '@svc/core'
import { createLogger } from '@svc/core/node'
import { describe, expect, it } from 'vitest'
import { warmVadOnSttReady } from './vad-warm-up'

const KINDS: Record<string, string> = { primary: 'llm', embed: 'llm', stt: 'stt', tts: 'tts', ears: 'stt' }

function setup(warm: () => Promise<void>) {
  const bus = createEventBus<SvcEvents>()
  const lines: string[] = []
  const logger = createLogger({ level: 'info', write: (line: string) => lines.push(line) })
  warmVadOnSttReady({ bus, kindOf: (slot) => KINDS[slot], logger, warm })
  const to = (slot: string, state: 'ready' | 'starting' | 'warming') =>
    bus.emit('slot.transition', { slot, from: 'warming', to: state, model: 'm', at: 0 })
  const settle = () => new Promise((resolve) => setTimeout(resolve, 0))
  return { to, lines, settle }
}

describe('the speech detector warm-up', () => {
  it('never loads the detector for slots of other kinds, nor before an stt slot is ready', async () => {
    let calls = 0
    const { to, lines, settle } = setup(async () => {
      calls++
    })
    for (const slot of ['primary', 'embed', 'tts', 'unknown']) to(slot, 'ready')
    to('stt', 'starting')
    to('stt', 'warming')
    await settle()
    expect(calls).toBe(0)
    expect(lines.join('')).not.toContain('speech detector')
  })

  it('loads it once when the first stt slot becomes ready, and logs it', async () => {
    let calls = 0
    const { to, lines, settle } = setup(async () => {
      calls++
    })
    to('stt', 'ready')
    to('ears', 'ready')
    to('stt', 'ready')
    await settle()
    to('stt', 'ready') // a reload, once it is loaded
    await settle()
    expect(calls).toBe(1)
    expect(lines.filter((l) => l.includes('speech detector loaded'))).toHaveLength(1)
  })

  it('logs a failed load without throwing, and tries again at the next ready', async () => {
    const outcomes = [new Error('no wasm here'), undefined]
    const { to, lines, settle } = setup(async () => {
      const next = outcomes.shift()
      if (next) throw next
    })
    expect(() => to('stt', 'ready')).not.toThrow()
    await settle()
    expect(lines.join('')).toContain('speech detector did not load')
    to('stt', 'ready')
    await settle()
    expect(lines.join('')).toContain('speech detector loaded')
    expect(outcomes).toEqual([])
  })
})
