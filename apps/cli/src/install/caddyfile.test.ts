import { describe, expect, it } from 'vitest'
import {
  basicAuthDirective,
  type CaddyfileInput,
  parseCaddyVersion,
  redactSecrets,
  renderCaddyfile,
} from './caddyfile'

const input: CaddyfileInput = {
  hostname: 'llm.local',
  tls: { mode: 'internal' },
  caddyVersion: { major: 2, minor: 6, patch: 2 },
  user: 'admin',
  passwordHash: '$2b$12$abcdefghijklmnopqrstuuABCDEFGHIJKLMNOPQRSTUVWXYZ01234',
  proxySecret: 'S3cret-value_0123456789abcdefghijklmnopqrs',
  chatProxySecret: 'Chat-S3cret_0123456789abcdefghijklmnopqrs',
  ports: { api: 8080, chat: 3001, http: 80, https: 443 },
}

describe('parseCaddyVersion', () => {
  it.each([
    ['2.6.2', { major: 2, minor: 6, patch: 2 }],
    ['v2.8.4 h1:q3pe0wpBj1OcHFZ3n/1nl4V4bxBrYoSoab7rL9BMYNk=', { major: 2, minor: 8, patch: 4 }],
    ['v2.10.0-beta.1 h1:x', { major: 2, minor: 10, patch: 0 }],
  ])('reads %s', (out, v) => expect(parseCaddyVersion(out)).toEqual(v))

  it('says undefined for anything else', () => expect(parseCaddyVersion('caddy: not found')).toBeUndefined())
})

describe('renderCaddyfile', () => {
  it('uses basicauth before Caddy 2.8 and basic_auth from 2.8 on', () => {
    expect(basicAuthDirective({ major: 2, minor: 7, patch: 6 })).toBe('basicauth')
    expect(basicAuthDirective({ major: 2, minor: 8, patch: 0 })).toBe('basic_auth')
    expect(basicAuthDirective({ major: 3, minor: 0, patch: 0 })).toBe('basic_auth')
    const newer = renderCaddyfile({ ...input, caddyVersion: { major: 2, minor: 8, patch: 4 } })
    expect(newer.match(/^\s+basic_auth bcrypt svc \{$/gm)).toHaveLength(3)
    expect(newer).not.toMatch(/basicauth/)
    expect(renderCaddyfile(input).match(/^\s+basicauth bcrypt svc \{$/gm)).toHaveLength(3)
  })

  it('sets the identity only in blocks behind basic auth, each of which drops the Basic header', () => {
    const text = renderCaddyfile(input)
    const blocks = text.split(/\n\s*(?=handle|handle_path)/)
    for (const block of blocks.filter((b) => b.includes('X-Forwarded-Email {http.auth.user.id}'))) {
      expect(block).toMatch(/basicauth bcrypt svc/)
      expect(block).toContain('header_up -Authorization')
    }
    expect(text.match(/header_up X-Forwarded-Email \{http\.auth\.user\.id\}/g)).toHaveLength(3)
    expect(text.match(new RegExp(`header_up X-Svc-Proxy-Secret "${input.proxySecret}"`, 'g'))).toHaveLength(3)
  })

  it('gives the chat app its own secret, never the API’s', () => {
    const text = renderCaddyfile(input)
    const chat = text.slice(text.indexOf('handle_path /chat/*'), text.indexOf('# Everything else'))
    expect(chat).toContain(`header_up X-Svc-Proxy-Secret "${input.chatProxySecret}"`)
    expect(chat).not.toContain(input.proxySecret)
    expect(text.split(input.chatProxySecret)).toHaveLength(2)
  })

  it('moves the ports only when told, and gives a public name ACME with its e-mail instead of tls internal', () => {
    expect(renderCaddyfile(input)).not.toMatch(/https?_port/)
    const high = renderCaddyfile({ ...input, ports: { api: 18081, chat: 18082, http: 18080, https: 18443 } })
    expect(high).toContain('\thttp_port 18080\n\thttps_port 18443\n')
    expect(high).toContain('reverse_proxy 127.0.0.1:18081 {')
    expect(high).toContain('reverse_proxy 127.0.0.1:18082 {')
    const pub = renderCaddyfile({
      ...input,
      hostname: 'llm.example.com',
      tls: { mode: 'acme', email: 'a@example.com' },
    })
    expect(pub).toContain('\temail a@example.com\n')
    expect(pub).not.toContain('tls internal')
    expect(pub).not.toContain('skip_install_trust')
  })
})

describe('redactSecrets', () => {
  it('takes every secret out of a message', () => {
    expect(redactSecrets('a S b S c T', ['S', 'T', ''])).toBe('a *** b *** c ***')
  })
})
