import { describe, expect, it } from 'vitest'
import { envFlag, envLogLevel, envPort } from './env-values'

describe('environment values', () => {
  it('reads a port, 0 included, and falls back when unset or empty', () => {
    expect(envPort('SVC_PORT', '8081', 8080)).toBe(8081)
    expect(envPort('SVC_PORT', '0', 8080)).toBe(0)
    expect(envPort('SVC_PORT', undefined, 8080)).toBe(8080)
    expect(envPort('SVC_CHAT_PORT', '', 3001)).toBe(3001)
  })

  it.each(['lots', '-1', '65536', '80.5'])('refuses the port %s, naming the variable', (value) => {
    expect(() => envPort('SVC_CHAT_PORT', value, 3001)).toThrow(
      `SVC_CHAT_PORT must be a port number, got "${value}"`,
    )
  })

  it('reads a log level in any case, info by default, and refuses another word', () => {
    expect(envLogLevel('DEBUG')).toBe('debug')
    expect(envLogLevel(undefined)).toBe('info')
    expect(envLogLevel('')).toBe('info')
    expect(() => envLogLevel('loud')).toThrow('SVC_LOG_LEVEL must be debug, info, warn or error, got "loud"')
  })

  it('reads a flag in its spellings and refuses another word', () => {
    expect(envFlag('SVC_AUTH_ENABLED', ' Yes ', false)).toBe(true)
    expect(envFlag('SVC_AUTH_ENABLED', 'off', true)).toBe(false)
    expect(envFlag('SVC_AUTH_ENABLED', undefined, true)).toBe(true)
    expect(() => envFlag('SVC_AUTH_ENABLED', 'maybe', false)).toThrow(
      'SVC_AUTH_ENABLED must be 1/true/yes/on',
    )
  })
})
