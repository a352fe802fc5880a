import { describe, expect, it } from 'vitest'
import {
  clientKey,
  createAddressMatcher,
  isLoopbackHost,
  normalizeAddress,
  parseAddressList,
} from './client-address'

describe('trusted proxy addresses', () => {
  it('trusts exactly 127.0.0.1 and ::1 by default', () => {
    const r = parseAddressList(undefined)
    if (!r.ok) throw new Error(r.error)
    expect(r.matcher.matches('127.0.0.1')).toBe(true)
    expect(r.matcher.matches('::1')).toBe(true)
    expect(r.matcher.matches('::ffff:127.0.0.1')).toBe(true)
    expect(r.matcher.matches('127.0.0.2')).toBe(false)
    expect(r.matcher.matches('10.0.0.1')).toBe(false)
    expect(r.matcher.matches(undefined)).toBe(false)
    expect(r.matcher.matches('')).toBe(false)
  })

  it('reads IPs and CIDRs, and none', () => {
    const r = parseAddressList(' 10.0.0.0/8, 192.168.1.7 ,fd00::/8,')
    if (!r.ok) throw new Error(r.error)
    expect(r.matcher.entries).toEqual(['10.0.0.0/8', '192.168.1.7', 'fd00::/8'])
    expect(r.matcher.matches('10.200.3.4')).toBe(true)
    expect(r.matcher.matches('::ffff:10.1.1.1')).toBe(true)
    expect(r.matcher.matches('192.168.1.7')).toBe(true)
    expect(r.matcher.matches('192.168.1.8')).toBe(false)
    expect(r.matcher.matches('fd12:3456::1')).toBe(true)
    expect(r.matcher.matches('127.0.0.1')).toBe(false)
    const none = parseAddressList('none')
    expect(none.ok && none.matcher.matches('127.0.0.1')).toBe(false)
  })

  it.each(['localhost', '10.0.0.0/33', '1.2.3.4/x', '1.2.3.4/8/9', '::1/129', '300.1.1.1'])(
    'refuses %s with a message naming it',
    (entry) => {
      const r = parseAddressList(entry)
      expect(r.ok).toBe(false)
      if (!r.ok) expect(r.error).toContain(`"${entry}"`)
      expect(() => createAddressMatcher([entry])).toThrow()
    },
  )
})

describe('client keys', () => {
  it('keys IPv4 by address and IPv6 by /64', () => {
    expect(clientKey('192.0.2.1')).toBe('192.0.2.1')
    expect(clientKey('::ffff:192.0.2.1')).toBe('192.0.2.1')
    expect(clientKey('2001:db8:1:2:3:4:5:6')).toBe('2001:0db8:0001:0002::/64')
    expect(clientKey('2001:db8:1:2::9')).toBe(clientKey('2001:db8:1:2:ffff::1'))
    expect(clientKey('2001:db8:1:3::9')).not.toBe(clientKey('2001:db8:1:2::9'))
    expect(clientKey('::1')).toBe('0000:0000:0000:0000::/64')
    expect(clientKey('fe80::1%eth0')).toBe('fe80:0000:0000:0000::/64')
    expect(clientKey(undefined)).toBe('unknown')
  })

  it('normalises case, zone ids and IPv4-mapped addresses', () => {
    expect(normalizeAddress('FE80::1%eth0')).toBe('fe80::1')
    expect(normalizeAddress('::FFFF:10.0.0.1')).toBe('10.0.0.1')
  })

  it('tells loopback listen hosts', () => {
    for (const h of ['127.0.0.1', '127.1.2.3', '::1', '[::1]', 'localhost'])
      expect(isLoopbackHost(h)).toBe(true)
    for (const h of ['0.0.0.0', '::', '192.168.1.2', 'example.com']) expect(isLoopbackHost(h)).toBe(false)
  })
})
