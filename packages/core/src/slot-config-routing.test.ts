import { describe, expect, it } from 'vitest'
import { parseSlotConfig, stringifySlotConfig } from './slot-config'
import { hasReplicas } from './slot-config-routing'

const remote =
  'provider = "llm"\nruntime = "remote"\nurls = ["http://10.0.0.1:8080", "http://10.0.0.2:8080"]\n'

describe('routing in a slot file', () => {
  it('routes by cache with the X-Session-Id header and a slack of 2 unless told otherwise', () => {
    const parsed = parseSlotConfig('duo', remote)
    expect(parsed.ok && parsed.config.routing).toEqual({
      policy: 'cache',
      sessionHeader: 'X-Session-Id',
      slack: 2,
    })
  })

  it('reads routing, session_header and routing_slack, and writes them back', () => {
    const text = `${remote}routing = "least-loaded"\nsession_header = "X-Conversation"\nrouting_slack = 4\n`
    const parsed = parseSlotConfig('duo', text)
    if (!parsed.ok) throw new Error(parsed.error.message)
    expect(parsed.config.routing).toEqual({
      policy: 'least-loaded',
      sessionHeader: 'X-Conversation',
      slack: 4,
    })
    const again = parseSlotConfig('duo', stringifySlotConfig(parsed.config))
    expect(again.ok && again.config.routing).toEqual(parsed.config.routing)
    expect(
      stringifySlotConfig({ ...parsed.config, routing: { ...parsed.config.routing, policy: 'cache' } }),
    ).not.toContain('routing = "cache"')
  })

  it('names the field when a value is wrong', () => {
    for (const [line, field] of [
      ['routing = "random"', 'routing'],
      ['session_header = "X Session"', 'session_header'],
      ['routing_slack = -1', 'routing_slack'],
    ]) {
      const parsed = parseSlotConfig('duo', `${remote}${line}\n`)
      expect(parsed.ok ? null : parsed.error.field).toBe(field)
    }
  })

  it('counts replicas only where there is more than one upstream to choose', () => {
    expect(hasReplicas({ runtime: 'remote', urls: ['http://a', 'http://b'] })).toBe(true)
    expect(hasReplicas({ runtime: 'remote', urls: ['http://a'] })).toBe(false)
    expect(hasReplicas({ runtime: 'remote' })).toBe(false)
    expect(hasReplicas({ runtime: 'swarm', replicas: 3 })).toBe(true)
    expect(hasReplicas({ runtime: 'process', replicas: 2 })).toBe(true)
    expect(hasReplicas({ runtime: 'process' })).toBe(false)
  })
})
