import { describe, expect, it } from 'vitest'
import { readServeEnv } from '../src/env'
import { startAuthServer } from './auth-harness'

describe('auth environment', () => {
  it('reads SVC_TRUSTED_PROXIES and SVC_PROXY_SECRET, with loopback as the default', () => {
    const env = readServeEnv({ SVC_AUTH_ENABLED: '1', SVC_CONFIG_DIR: '/x', SVC_STATE_DIR: '/y' })
    expect(env.host).toBe('127.0.0.1')
    expect(env.trustedProxies.entries).toEqual(['127.0.0.1', '::1'])
    expect(env.proxySecret).toBeUndefined()
    const custom = readServeEnv({ SVC_TRUSTED_PROXIES: '10.0.0.0/8, ::1', SVC_PROXY_SECRET: 's3cret' })
    expect(custom.trustedProxies.matches('10.1.2.3')).toBe(true)
    expect(custom.trustedProxies.matches('127.0.0.1')).toBe(false)
    expect(custom.proxySecret).toBe('s3cret')
  })

  it('refuses a trusted proxy that is not an address, naming it', () => {
    expect(() => readServeEnv({ SVC_TRUSTED_PROXIES: '127.0.0.1,proxy.local' })).toThrow(
      /SVC_TRUSTED_PROXIES: "proxy.local" is not an IP address or CIDR/,
    )
  })

  it('warns about forwarded identities when auth is on and svc listens beyond loopback', async () => {
    await using server = await startAuthServer({ SVC_HOST: '0.0.0.0' })
    const warning = server.logs.find((l) => l.includes('listens beyond loopback'))
    expect(warning).toBeDefined()
    expect(JSON.parse(warning!)).toMatchObject({
      level: 'warn',
      host: '0.0.0.0',
      trustedProxies: ['127.0.0.1', '::1'],
    })
    await using quiet = await startAuthServer()
    expect(quiet.logs.some((l) => l.includes('listens beyond loopback'))).toBe(false)
  })
})
