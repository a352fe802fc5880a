import { describe, expect, it } from 'vitest'
import { canTransition, SLOT_STATES, SLOT_TRANSITIONS, type SlotState } from './slot-states'

// The table of docs/architecture.md written out as pairs, independently of SLOT_TRANSITIONS.
const ALLOWED: Record<SlotState, SlotState[]> = {
  offline: ['pulling', 'starting'],
  pulling: ['starting', 'offline', 'unloading'],
  starting: ['warming', 'offline', 'unloading'],
  warming: ['ready', 'offline', 'unloading'],
  ready: ['serving', 'unloading', 'offline'],
  serving: ['idle', 'unloading', 'offline'],
  idle: ['serving', 'unloading', 'offline'],
  unloading: ['offline'],
}

describe('slot transitions', () => {
  for (const from of SLOT_STATES) {
    for (const to of SLOT_STATES) {
      const allowed = ALLOWED[from].includes(to)
      it(`${allowed ? 'allows' : 'refuses'} ${from} -> ${to}`, () => {
        expect(canTransition(from, to)).toBe(allowed)
      })
    }
  }

  it('moves every running state to offline when the upstream exits', () => {
    for (const from of ['starting', 'warming', 'ready', 'serving', 'idle'] as const) {
      expect(canTransition(from, 'offline')).toBe(true)
    }
  })

  it('says why for every move', () => {
    expect(SLOT_TRANSITIONS.filter((move) => !move.why)).toEqual([])
  })

  it('has no transition that leaves a state for itself', () => {
    expect(SLOT_TRANSITIONS.filter((move) => move.from === move.to)).toEqual([])
  })
})
