import { describe, expect, it } from 'vitest'
import { checkHostname, defaultHostname, tlsModeFor } from './host-name'

describe('host names', () => {
  it('defaults to this machine’s short name under .local', () => {
    expect(defaultHostname('Box.example.com')).toBe('box.local')
    expect(defaultHostname('under_score')).toBe('svc.local')
  })

  it('takes DNS names and IPv4 addresses, nothing that could change the Caddyfile', () => {
    expect(checkHostname('LLM.Local.')).toEqual({ ok: true, name: 'llm.local' })
    expect(checkHostname('192.168.1.5')).toEqual({ ok: true, name: '192.168.1.5' })
    for (const bad of ['llm.local {', 'a b', '-x.local', 'x..local', '*.example.com', 'a/b', '1.2.3.999', ''])
      expect(checkHostname(bad).ok, bad).toBe(false)
  })

  it('gives names no public CA certifies the internal CA, public names ACME', () => {
    for (const name of ['llm.local', 'box', 'localhost', 'svc.home.arpa', 'x.lan', 'x.internal', '10.0.0.2'])
      expect(tlsModeFor(name), name).toBe('internal')
    for (const name of ['llm.example.com', 'ai.example.org']) expect(tlsModeFor(name), name).toBe('acme')
  })
})
