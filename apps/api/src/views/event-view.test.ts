import { describe, expect, it } from 'vitest'
import { eventFor } from './event-view'

describe('eventFor', () => {
  it("reduces a replica's error for other scopes and keeps it for admins", () => {
    const payload = {
      slot: 'pair',
      at: 1,
      replicas: [
        { id: 'url-1', node: null, healthy: true, error: null },
        { id: 'url-2', node: null, healthy: false, error: 'http://svc:hunter2@10.0.0.5:8188: unreachable' },
      ],
    }
    expect(eventFor('slot.replicas', payload, true)).toBe(payload)
    const seen = eventFor('slot.replicas', payload, false)
    expect(seen.replicas).toEqual([
      { id: 'url-1', node: null, healthy: true, error: null },
      { id: 'url-2', node: null, healthy: false, error: 'http://10.0.0.5: unreachable' },
    ])
  })
})
