import { describe, expect, it } from 'vitest'
import { isCI, readTestEnv, testEnv } from '../src/test-env'

describe("the test run's environment", () => {
  it('counts CI=1 and CI=true as CI, and not CI=0, CI=false or no CI', () => {
    for (const value of ['1', 'true', 'TRUE', 'yes']) expect(isCI(value)).toBe(true)
    for (const value of ['0', 'false', '', ' ', undefined]) expect(isCI(value)).toBe(false)
  })

  it('takes the defaults when nothing is set', () => {
    expect(readTestEnv({})).toMatchObject({
      ci: false,
      built: false,
      chromium: '/usr/bin/chromium',
      dockerHost: undefined,
      path: '',
      flm: { servePort: 52625, jobDelayMs: 0 },
    })
  })

  it('reads each variable once, into one frozen object', () => {
    const env = readTestEnv({
      CI: 'true',
      SVC_TEST_BUILT: '1',
      SVC_CHROMIUM: '/opt/chromium',
      DOCKER_HOST: 'unix:///run/podman/podman.sock',
      PATH: '/bin',
      FLM_SERVE_PORT: '0',
      FLM_STANDIN_JOB_MS: '250',
    })
    expect(env).toMatchObject({
      ci: true,
      built: true,
      chromium: '/opt/chromium',
      dockerHost: 'unix:///run/podman/podman.sock',
      path: '/bin',
      flm: { servePort: 0, jobDelayMs: 250 },
    })
    expect(Object.isFrozen(env)).toBe(true)
    expect(Object.isFrozen(testEnv)).toBe(true)
  })

  it.each([
    [
      'SVC_TEST_BUILT',
      'sometimes',
      'SVC_TEST_BUILT must be 1/true/yes/on or 0/false/no/off, got "sometimes"',
    ],
    ['FLM_SERVE_PORT', '99999', 'FLM_SERVE_PORT must be a port number, got "99999"'],
    ['FLM_STANDIN_JOB_MS', '-5', 'FLM_STANDIN_JOB_MS must be a whole number of ms >= 0, got "-5"'],
  ])('refuses %s=%s, naming the variable', (name, value, message) => {
    expect(() => readTestEnv({ [name]: value })).toThrow(message)
  })

  it('gives a child a copy of the whole environment, which it may change without touching the next', () => {
    const env = readTestEnv({ PATH: '/bin', SVC_LLAMA_SERVER: '/opt/llama-server' })
    const child = env.inherited()
    child.SVC_PORT = '0'
    expect(env.inherited()).toEqual({ PATH: '/bin', SVC_LLAMA_SERVER: '/opt/llama-server' })
  })
})
