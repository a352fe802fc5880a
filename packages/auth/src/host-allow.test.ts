import { describe, expect, it } from 'vitest'
import {
  allowedHostsFrom,
  createHostRule,
  type HostRequest,
  hostnameOf,
  machineHostnames,
  parseAllowedHosts,
} from './host-allow'

const MACHINE = machineHostnames({
  hostname: 'strix.lan',
  addresses: ['127.0.0.1', '192.168.1.20', '::1', 'fe80::1%eth0', 'fd00::20'],
})

function rule(allowedHosts?: string, hostname?: string, machine: () => readonly string[] = () => MACHINE) {
  const allowed = allowedHostsFrom({ allowedHosts, hostname })
  if (!allowed.ok) throw new Error(allowed.error)
  return createHostRule({ allowed: allowed.hosts, machine })
}

const LOCAL_PEER = '127.0.0.1'
const LAN_PEER = '192.168.1.50'

describe('the host rule', () => {
  // [Host header, peer, allowed with no extra names]
  const table: [string | undefined, string, boolean][] = [
    ['localhost', LAN_PEER, true],
    ['localhost:8080', LAN_PEER, true],
    ['LOCALHOST.:8080', LAN_PEER, true],
    ['chat.localhost:3001', LAN_PEER, true],
    ['127.0.0.1:8080', LAN_PEER, true],
    ['127.3.4.5', LAN_PEER, true],
    ['[::1]:8080', LAN_PEER, true],
    ['[0:0:0:0:0:0:0:1]', LAN_PEER, true],
    ['0.0.0.0:8080', LAN_PEER, true],
    ['[::]:8080', LAN_PEER, true],
    // the machine's own names and addresses
    ['strix.lan:8080', LAN_PEER, true],
    ['strix', LAN_PEER, true],
    ['strix.local', LAN_PEER, true],
    ['Strix.Local:443', LAN_PEER, true],
    ['192.168.1.20:8080', LAN_PEER, true],
    ['[fd00::20]:8080', LAN_PEER, true],
    ['[fe80::1]:8080', LAN_PEER, true],
    // rebinding and look-alikes
    ['evil.test:8080', LOCAL_PEER, false],
    ['evil.test', LAN_PEER, false],
    ['localhost.evil.test', LOCAL_PEER, false],
    ['strix.lan.evil.test', LOCAL_PEER, false],
    ['127.0.0.1.nip.io', LOCAL_PEER, false],
    ['192.168.1.21', LAN_PEER, false],
    ['evil.test:8080:80', LOCAL_PEER, false],
    ['localhost:http', LOCAL_PEER, false],
    ['local host', LOCAL_PEER, false],
    ['[::1', LOCAL_PEER, false],
    ['[::1]x', LOCAL_PEER, false],
    // 2130706433 is 127.0.0.1 to the URL parser; browsers send the dotted form, but curl may not.
    ['2130706433', LOCAL_PEER, true],
    // no Host (HTTP/1.0): local scripts only
    [undefined, LOCAL_PEER, true],
    [undefined, '::1', true],
    [undefined, '::ffff:127.0.0.1', true],
    [undefined, LAN_PEER, false],
    ['', LAN_PEER, false],
  ]
  it.each(table)('Host %j from %s: %s', (host, peer, want) => {
    expect(rule().allows({ host, peer })).toBe(want)
    // The answer does not change once remembered, and the hot path's first look agrees.
    const r = rule()
    r.allows({ host, peer })
    expect(r.allows({ host, peer })).toBe(want)
    if (!want) expect(r.knows(host)).toBe(false)
  })

  it('answers to SVC_HOSTNAME and SVC_ALLOWED_HOSTS, names, addresses and .suffixes, port ignored', () => {
    const r = rule('llm.example.com:8443, 10.0.0.5, fd00::5, .home.arpa', 'svc.internal')
    const yes = (host: string) => r.allows({ host, peer: LAN_PEER })
    expect(yes('svc.internal')).toBe(true)
    expect(yes('LLM.example.com')).toBe(true)
    expect(yes('llm.example.com:9999')).toBe(true)
    expect(yes('10.0.0.5:8080')).toBe(true)
    expect(yes('[fd00::5]:8080')).toBe(true)
    expect(yes('home.arpa')).toBe(true)
    expect(yes('box.home.arpa:8080')).toBe(true)
    expect(yes('a.b.home.arpa')).toBe(true)
    expect(yes('evilhome.arpa')).toBe(false)
    expect(yes('example.com')).toBe(false)
    expect(yes('x.llm.example.com')).toBe(false)
  })

  it('switches off with SVC_ALLOWED_HOSTS=*', () => {
    expect(rule('*').allows({ host: 'evil.test', peer: LAN_PEER })).toBe(true)
    expect(rule('*').allows({ host: undefined, peer: LAN_PEER })).toBe(true)
  })

  it('lets the reverse proxy vouch for the host it chose (asked only on a miss)', () => {
    let asked = 0
    const viaProxy = (answer: boolean) => () => {
      asked++
      return answer
    }
    const r = rule()
    const req = (host: string, answer: boolean): HostRequest => ({
      host,
      peer: LOCAL_PEER,
      viaProxy: viaProxy(answer),
    })
    expect(r.allows(req('llm.example.com', true))).toBe(true)
    expect(r.allows(req('llm.example.com', false))).toBe(false) // never remembered for others
    expect(asked).toBe(2)
    expect(r.allows(req('localhost', false))).toBe(true)
    expect(asked).toBe(2)
  })

  it('asks the machine again for an unknown host, at most every 10 s (a new DHCP address)', () => {
    let now = 0
    let addresses = ['192.168.1.20']
    let asked = 0
    const machine = () => {
      asked++
      return machineHostnames({ hostname: 'strix', addresses })
    }
    const allowed = parseAllowedHosts(undefined)
    if (!allowed.ok) throw new Error(allowed.error)
    const r = createHostRule({ allowed: allowed.hosts, machine, now: () => now })
    expect(asked).toBe(1)
    addresses = ['192.168.1.77']
    expect(r.allows({ host: '192.168.1.77', peer: LAN_PEER })).toBe(false)
    now = 10_000
    expect(r.allows({ host: '192.168.1.77', peer: LAN_PEER })).toBe(true)
    expect(r.allows({ host: 'evil.test', peer: LAN_PEER })).toBe(false)
    expect(r.allows({ host: 'evil.test', peer: LAN_PEER })).toBe(false)
    expect(asked).toBe(2)
  })

  it('refuses with 403 host.forbidden that says how to add the name', () => {
    const error = rule().refusal('Evil.Test:8080')
    expect(error.status).toBe(403)
    expect(error.code).toBe('host.forbidden')
    expect(error.message).toContain('"evil.test"')
    expect(error.message).toContain('SVC_ALLOWED_HOSTS=evil.test')
    expect(rule().refusal(undefined).message).toMatch(/without a Host header/)
  })
})

describe('SVC_ALLOWED_HOSTS and SVC_HOSTNAME', () => {
  it.each([
    'http://x.example',
    'a b',
    '*.example.com',
    '*, x.example',
    'x.example/path',
    '.[fd00::1]',
    'x:y',
  ])('refuses %j with a message naming the entry', (entry) => {
    const r = parseAllowedHosts(entry)
    expect(r.ok).toBe(false)
    if (!r.ok) expect(r.error).toMatch(/^SVC_ALLOWED_HOSTS: /)
  })

  it('reads blanks and stray commas as nothing', () => {
    expect(parseAllowedHosts(' , ')).toEqual({ ok: true, hosts: { any: false, names: [], suffixes: [] } })
  })

  it('refuses a bad SVC_HOSTNAME', () => {
    const r = allowedHostsFrom({ allowedHosts: undefined, hostname: 'llm local' })
    expect(r.ok || r.error).toMatch(/SVC_HOSTNAME/)
  })

  it('writes hosts one way: lower case, no port or trailing dot, IPv6 bracketed and compressed', () => {
    expect(hostnameOf('Example.COM.:80')).toBe('example.com')
    expect(hostnameOf('[FD00:0::1]:8080')).toBe('[fd00::1]')
    expect(hostnameOf('fd00::1')).toBe('[fd00::1]')
    expect(hostnameOf('127.1')).toBe('127.0.0.1')
    expect(hostnameOf('-bad.example')).toBeUndefined()
  })
})
