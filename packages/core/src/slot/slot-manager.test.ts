import { describe, expect, it } from 'vitest'
import { createTestClock } from '../../test/slot/test-clock'
import { createTestDriver, model } from '../../test/slot/test-driver'
import { SvcError } from '../errors'
import { createEventBus } from '../event-bus'
import type { SvcEvents } from '../events'
import { defaultSlotConfig, type SlotConfig } from '../slot-config'
import { SlotManager } from './slot-manager'

function manager(configs: SlotConfig[]) {
  const clock = createTestClock()
  const driver = createTestDriver({ probesUntilHealthy: 0 })
  const m = new SlotManager({
    configs,
    bus: createEventBus<SvcEvents>(),
    clock,
    createDriver: () => driver,
    resolveModel: async (id) => {
      if (id === 'nope')
        throw new SvcError('model.not_found', `model "${id}" does not exist`, { param: 'model' })
      return model(id)
    },
  })
  return { m, driver, clock }
}

describe('SlotManager', () => {
  it('answers slot.not_found for an unknown slot', () => {
    const { m } = manager([defaultSlotConfig('primary')!])
    expect(() => m.get('nope')).toThrow(expect.objectContaining({ code: 'slot.not_found', status: 404 }))
  })

  it('loads by id and finds the slot that owns a ref', async () => {
    const { m, clock } = manager([defaultSlotConfig('primary')!, defaultSlotConfig('embed')!])
    await clock.run(m.load('embed', 'e5'))
    expect(m.findByModel('e5')?.name).toBe('embed')
    expect(m.findByModel('other')).toBeUndefined()
    await expect(m.load('primary', 'nope')).rejects.toMatchObject({ code: 'model.not_found' })
  })

  it('loads the default model of enabled slots only, reporting failures as values', async () => {
    const primary = { ...defaultSlotConfig('primary')!, enabled: true, model: { default: 'a' } }
    const embed = { ...defaultSlotConfig('embed')!, enabled: false, model: { default: 'b' } }
    const stt = { ...defaultSlotConfig('stt')!, enabled: true, model: { default: 'nope' } }
    const { m, driver, clock } = manager([primary, embed, stt])
    const results = await clock.run(m.loadDefaults())
    expect(results).toEqual([
      { slot: 'primary', model: 'a' },
      { slot: 'stt', model: 'nope', error: 'model "nope" does not exist' },
    ])
    expect(driver.started).toEqual(['a'])
  })

  it('adds a custom slot through configure and unloads everything on stop', async () => {
    const { m, driver, clock } = manager([defaultSlotConfig('primary')!])
    m.configure({ ...defaultSlotConfig('primary')!, name: 'mine', provider: 'llm' })
    await clock.run(m.load('mine', 'x'))
    expect(m.names()).toEqual(['primary', 'mine'])
    await clock.run(m.stopAll())
    expect(driver.handles.every((h) => h.stopped)).toBe(true)
    expect(m.list().map((s) => s.state)).toEqual(['offline', 'offline'])
  })
})
