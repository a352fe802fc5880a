import type { SlotManager } from '@svc/core'
import { describe, expect, it } from 'vitest'
import { mayUseModel, refuseUnallowedModel } from './model-access'

/** Two slots: `primary` holds `qwen3-8b-q4`, `embed` holds nothing. */
const slots = {
  has: (name: string) => name === 'primary' || name === 'embed',
  get: (name: string) => ({ currentModel: () => (name === 'primary' ? { id: 'qwen3-8b-q4' } : null) }),
} as unknown as Pick<SlotManager, 'has' | 'get'>

const only =
  (...names: string[]) =>
  (name: string) =>
    names.includes(name)

describe('model access', () => {
  it('allows the name sent when it matches', () => {
    expect(mayUseModel(only('embed'), 'embed', slots)).toBe(true)
    expect(mayUseModel(only('qwen3-8b-q4'), 'qwen3-8b-q4', slots)).toBe(true)
    expect(mayUseModel(only('embed'), 'other-ref', slots)).toBe(false)
  })

  it('allows a slot name when the model the slot holds matches, not the other way round', () => {
    expect(mayUseModel(only('qwen3-8b-q4'), 'primary', slots)).toBe(true)
    expect(mayUseModel(only('qwen3-8b-q4'), 'embed', slots)).toBe(false)
    expect(mayUseModel(only('primary'), 'qwen3-8b-q4', slots)).toBe(false)
  })

  it('refuses with 403 auth.forbidden naming the model; an image request without one stands for its slot', () => {
    expect(() => refuseUnallowedModel(only('embed'), 'primary', undefined, slots)).toThrow(
      expect.objectContaining({
        code: 'auth.forbidden',
        status: 403,
        message: expect.stringContaining('"primary"'),
      }),
    )
    expect(() => refuseUnallowedModel(only('embed'), undefined, 'img', slots)).toThrow(/"img"/)
    expect(() => refuseUnallowedModel(only('img'), undefined, 'img', slots)).not.toThrow()
    expect(() => refuseUnallowedModel(only('embed'), undefined, undefined, slots)).not.toThrow()
  })
})
