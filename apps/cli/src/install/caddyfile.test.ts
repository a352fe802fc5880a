import { describe, expect, it } from 'vitest'
import { type CaddyfileInput, parseCaddyVersion, redactSecrets, renderCaddyfile } from './caddyfile'

const input: CaddyfileInput = {
  hostname: 'llm.local',
  tls: { mode: 'internal' },
  caddyVersion: { major: 2, minor: 6, patch: 2 },
  proxySecret: 'S3cret-value_0123456789abcdefghijklmnopqrs',
  chatProxySecret: 'Chat-S3cret_0123456789abcdefghijklmnopqrs',
  ports: { api: 8080, chat: 3001, gate: 3002, http: 80, https: 443 },
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
  it('asks the auth gate (not Caddy’s basicauth, which has no rate limit) on every signed-in route', () => {
    const text = renderCaddyfile(input)
    expect(text).not.toMatch(/basic_?auth/)
    expect(text.match(/^\s+forward_auth 127\.0\.0\.1:3002 \{$/gm)).toHaveLength(3)
    expect(text.match(/^\s+copy_headers X-Forwarded-Email$/gm)).toHaveLength(3)
  })

  it('takes the identity only from the gate, in blocks that drop the Basic header', () => {
    const text = renderCaddyfile(input)
    const blocks = text.split(/\n\s*(?=handle|handle_path)/)
    for (const block of blocks.filter((b) => b.includes('reverse_proxy') && b.includes('forward_auth')))
      expect(block).toContain('header_up -Authorization')
    expect(text).not.toMatch(/header_up X-Forwarded-Email/)
    // three routes to the API and three gate checks carry the API's secret
    expect(text.match(new RegExp(`header_up X-Svc-Proxy-Secret "${input.proxySecret}"`, 'g'))).toHaveLength(6)
  })

  it('gives the chat app its own secret, never the API’s', () => {
    const text = renderCaddyfile(input)
    const chat = text.slice(text.indexOf('reverse_proxy 127.0.0.1:3001'), text.indexOf('# Everything else'))
    expect(chat).toContain(`header_up X-Svc-Proxy-Secret "${input.chatProxySecret}"`)
    expect(chat).not.toContain(input.proxySecret)
    expect(text.split(input.chatProxySecret)).toHaveLength(2)
  })

  it('moves the ports only when told, and gives a public name ACME with its e-mail instead of tls internal', () => {
    expect(renderCaddyfile(input)).not.toMatch(/https?_port/)
    const high = renderCaddyfile({
      ...input,
      ports: { api: 18081, chat: 18082, gate: 18083, http: 18080, https: 18443 },
    })
    expect(high).toContain('\thttp_port 18080\n\thttps_port 18443\n')
    expect(high).toContain('reverse_proxy 127.0.0.1:18081 {')
    expect(high).toContain('reverse_proxy 127.0.0.1:18082 {')
    expect(high).toContain('forward_auth 127.0.0.1:18083 {')
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
