import { describe, expect, it } from 'vitest'
import { apiUrlOf, authGatePortOf, checkCliEnv, startChatOf } from './cli-env'
import { CliError, defaultContext } from './context'

describe("the CLI's environment", () => {
  it('takes the defaults its table declares (and docs/configuration.md shows) when nothing is set', () => {
    expect(apiUrlOf({})).toBe('http://127.0.0.1:8080')
    expect(startChatOf({})).toBe(true)
    expect(authGatePortOf({})).toBe(3002)
  })

  it('reads each value in its form', () => {
    expect(apiUrlOf({ SVC_API_URL: 'https://svc.example.com/' })).toBe('https://svc.example.com')
    expect(startChatOf({ SVC_START_CHAT: '0' })).toBe(false)
    expect(authGatePortOf({ SVC_AUTH_GATE_PORT: '4000' })).toBe(4000)
  })

  it.each([
    ['SVC_API_URL', 'localhost:8080', 'SVC_API_URL must be an http(s) URL, got "localhost:8080"'],
    ['SVC_API_URL', 'ftp://svc', 'SVC_API_URL must be an http(s) URL, got "ftp://svc"'],
    ['SVC_START_CHAT', 'maybe', 'SVC_START_CHAT must be 1/true/yes/on or 0/false/no/off, got "maybe"'],
    ['SVC_AUTH_GATE_PORT', '70000', 'SVC_AUTH_GATE_PORT must be a port number, got "70000"'],
  ])('refuses %s=%s at start, naming the variable, as a usage error (exit 2)', (name, value, message) => {
    expect(() => checkCliEnv({ [name]: value })).toThrow(message)
    let thrown: unknown
    try {
      defaultContext({ [name]: value })
    } catch (error) {
      thrown = error
    }
    expect(thrown).toBeInstanceOf(CliError)
    expect(thrown).toMatchObject({ message, code: 2 })
  })
})
