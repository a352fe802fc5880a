import type { NetworkInterfaceInfo } from 'node:os'
import { describe, expect, it } from 'vitest'
import { bannerLines, CHAT_LOCAL_ONLY } from './banner'
import { lanAddresses, openAddresses } from './open-addresses'
import { listeningIn, serversFor } from './servers'

const nic = (address: string, family: 'IPv4' | 'IPv6' = 'IPv4', internal = false) =>
  ({ address, family, internal, netmask: '', mac: '', cidr: null }) as NetworkInterfaceInfo
const INTERFACES = {
  lo: [nic('127.0.0.1', 'IPv4', true), nic('::1', 'IPv6', true)],
  eth0: [nic('192.168.1.20'), nic('fe80::1', 'IPv6')],
  wlan0: [nic('10.0.0.7'), nic('169.254.3.4')],
  docker0: [nic('172.17.0.1')],
  'br-1a2b': [nic('172.18.0.1')],
}

describe('openAddresses', () => {
  it('turns a wildcard bind into localhost and the LAN addresses', () => {
    expect(openAddresses('http://0.0.0.0:8080', { interfaces: INTERFACES })).toEqual({
      here: 'http://localhost:8080/',
      lan: ['http://192.168.1.20:8080/', 'http://10.0.0.7:8080/'],
      localOnly: false,
    })
    expect(openAddresses('http://[::]:8080', { interfaces: INTERFACES }).here).toBe('http://localhost:8080/')
  })

  it('keeps loopback on this machine, and a specific address as it is', () => {
    expect(openAddresses('http://127.0.0.1:3001', { loopbackName: '127.0.0.1' })).toEqual({
      here: 'http://127.0.0.1:3001/',
      lan: [],
      localOnly: true,
    })
    expect(openAddresses('http://[::1]:8080').here).toBe('http://localhost:8080/')
    expect(openAddresses('http://192.168.1.20:8080', { interfaces: INTERFACES })).toEqual({
      here: 'http://192.168.1.20:8080/',
      lan: [],
      localOnly: false,
    })
  })

  it('leaves out loopback, IPv6, link-local and container bridges from the LAN list', () => {
    expect(lanAddresses(INTERFACES)).toEqual(['192.168.1.20', '10.0.0.7'])
    expect(lanAddresses({ lo: INTERFACES.lo })).toEqual([])
  })
})

describe('bannerLines', () => {
  const api = { app: 'api' as const, pid: 11, argv: [], log: '', url: 'http://0.0.0.0:8080' }
  const chat = {
    app: 'chat' as const,
    pid: 12,
    argv: [],
    log: '',
    url: 'http://127.0.0.1:3001',
    bound: 'http://127.0.0.1:3001',
    oneLocalUser: true,
  }

  it('prints what a person opens, never 0.0.0.0, and why the chat app is local only', () => {
    const text = bannerLines([{ ...api, seconds: 0.5 }, chat], { interfaces: INTERFACES })
    expect(text).not.toContain('0.0.0.0')
    expect(text).toBe(
      '  Dashboard and API  http://localhost:8080/  (pid 11, listening after 0.50 s)\n' +
        '                     http://192.168.1.20:8080/  (from other machines)\n' +
        '                     http://10.0.0.7:8080/  (from other machines)\n' +
        '  Chat app           http://127.0.0.1:3001/  (pid 12)\n' +
        `  ${CHAT_LOCAL_ONLY}\n`,
    )
  })

  it('says nothing of the local user when the chat app listens on the LAN or behind a proxy', () => {
    const lan = { ...chat, bound: 'http://0.0.0.0:3001' }
    expect(bannerLines([lan], { interfaces: INTERFACES })).toContain('http://192.168.1.20:3001/')
    expect(bannerLines([lan], { interfaces: INTERFACES })).not.toContain(CHAT_LOCAL_ONLY)
    expect(bannerLines([{ ...chat, oneLocalUser: false }])).not.toContain(CHAT_LOCAL_ONLY)
  })
})

describe('listeningIn', () => {
  const [apiSpec, chatSpec] = serversFor({ SVC_START_CHAT: '1' })
  it('reads the address a server bound from its last listening line', () => {
    const apiLog =
      '{"time":"t","level":"info","msg":"svc listening","url":"http://0.0.0.0:1","version":"0"}\n' +
      '{"time":"t","level":"info","msg":"svc listening","url":"http://0.0.0.0:8080","version":"0"}\n'
    expect(listeningIn(apiSpec!, apiLog)).toEqual({
      url: 'http://0.0.0.0:8080',
      bound: 'http://0.0.0.0:8080',
    })
    const chatLog =
      '{"time":"t","level":"info","msg":"svc chat listening","url":"http://127.0.0.1:3001","host":"0.0.0.0","port":3001,"auth":"off (one local user)"}\n'
    expect(listeningIn(chatSpec!, chatLog)).toEqual({
      url: 'http://127.0.0.1:3001',
      bound: 'http://0.0.0.0:3001',
      oneLocalUser: true,
    })
    expect(listeningIn(chatSpec!, '{"msg":"starting"}\n')).toBeUndefined()
  })
})
