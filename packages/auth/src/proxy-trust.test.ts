import { describe, expect, it } from 'vitest'
import { createAddressMatcher } from './client-address'
import { createProxyTrust } from './proxy-trust'

describe('proxy trust', () => {
  it('trusts a loopback peer by default and nothing else', () => {
    const fromProxy = createProxyTrust()
    expect(fromProxy('127.0.0.1', undefined)).toBe(true)
    expect(fromProxy('::ffff:127.0.0.1', undefined)).toBe(true)
    expect(fromProxy('127.0.0.2', undefined)).toBe(false)
    expect(fromProxy(undefined, undefined)).toBe(false)
  })

  it('needs the secret as well once one is configured', () => {
    const fromProxy = createProxyTrust({
      trustedProxies: createAddressMatcher(['10.0.0.0/8']),
      proxySecret: 's3cret',
    })
    expect(fromProxy('10.1.2.3', 's3cret')).toBe(true)
    expect(fromProxy('10.1.2.3', undefined)).toBe(false)
    expect(fromProxy('10.1.2.3', 's3cret ')).toBe(false)
    expect(fromProxy('10.1.2.3', '')).toBe(false)
    // The right secret from a peer that is not the proxy is still refused.
    expect(fromProxy('192.168.1.5', 's3cret')).toBe(false)
  })
})
