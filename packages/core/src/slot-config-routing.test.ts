import { describe, expect, it } from 'vitest'
import { parseSlotConfig, stringifySlotConfig } from './slot-config'
import { hasReplicas, replicasPerDevice } from './slot-config-routing'

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

  it('charges local replicas per device: all on one, or as many as share the busiest listed one', () => {
    expect(replicasPerDevice({})).toBe(1)
    expect(replicasPerDevice({ replicas: 3 })).toBe(3)
    expect(replicasPerDevice({ replicas: 2, devices: ['cuda:0', 'cuda:1'] })).toBe(1)
    expect(replicasPerDevice({ devices: ['cuda:0', 'cuda:1', 'cuda:0'] })).toBe(2)
  })

  it('takes replicas and devices for a local slot, one replica per device of its backend', () => {
    const cpu = parseSlotConfig('primary', 'runtime = "process"\nreplicas = 2\n')
    expect(cpu.ok && [cpu.config.replicas, hasReplicas(cpu.config)]).toEqual([2, true])
    const gpus = parseSlotConfig('primary', 'backend = "cuda"\ndevices = ["cuda:0", "cuda:1"]\n')
    expect(gpus.ok && [gpus.config.devices, hasReplicas(gpus.config)]).toEqual([['cuda:0', 'cuda:1'], true])
    if (!gpus.ok) throw new Error(gpus.error.message)
    const again = parseSlotConfig('primary', stringifySlotConfig(gpus.config))
    expect(again.ok && again.config.devices).toEqual(['cuda:0', 'cuda:1'])
    for (const [text, field] of [
      ['devices = ["cuda:0", "rocm:1"]', 'devices'],
      ['backend = "rocm"\ndevices = ["cuda:0"]', 'devices'],
      ['devices = ["gpu0"]', 'devices.0'],
      ['replicas = 3\ndevices = ["cuda:0", "cuda:1"]', 'replicas'],
      ['runtime = "swarm"\ndevices = ["cuda:0"]', 'devices'],
      ['runtime = "process"\nconstraints = ["node.role!=manager"]', 'constraints'],
    ]) {
      const parsed = parseSlotConfig('primary', `${text}\n`)
      expect(parsed.ok ? null : parsed.error.field, text).toBe(field)
    }
  })
})
