import { describe, expect, it } from 'vitest'
import { crossSiteRefusal, isCrossSite } from './same-site'

type Headers = Record<string, string>
const lookup = (headers: Headers) => (name: string) => headers[name]

describe('the same-site rule', () => {
  // [headers, whether the reverse proxy vouches for the request, cross-site?]
  const table: [string, Headers, boolean, boolean][] = [
    ['no browser headers (curl, the CLI)', { host: 'box:8080' }, false, false],
    ['Sec-Fetch-Site same-origin', { 'sec-fetch-site': 'same-origin' }, false, false],
    ['Sec-Fetch-Site none (typed by the user)', { 'sec-fetch-site': 'none' }, false, false],
    ['Sec-Fetch-Site same-site (another port)', { 'sec-fetch-site': 'same-site' }, false, true],
    ['Sec-Fetch-Site cross-site', { 'sec-fetch-site': 'cross-site' }, false, true],
    // The chat server's copy compared case-sensitively: "Cross-Site" passed there.
    ['Sec-Fetch-Site Cross-Site (any case)', { 'sec-fetch-site': 'Cross-Site' }, false, true],
    ['Sec-Fetch-Site SAME-ORIGIN (any case)', { 'sec-fetch-site': ' SAME-ORIGIN ' }, false, false],
    ['an unknown Sec-Fetch-Site', { 'sec-fetch-site': 'other' }, false, true],
    [
      'Sec-Fetch-Site wins over a matching Origin',
      { 'sec-fetch-site': 'cross-site', origin: 'http://box:8080', host: 'box:8080' },
      false,
      true,
    ],
    ['Origin of this host', { origin: 'http://box:8080', host: 'box:8080' }, false, false],
    ['Origin of this host, other case', { origin: 'http://BOX:8080', host: 'box:8080' }, false, false],
    ['Origin of another port', { origin: 'http://box:3001', host: 'box:8080' }, false, true],
    ['Origin of another host', { origin: 'https://evil.example', host: 'box:8080' }, false, true],
    // The chat server's copy compared whole strings: a default port written in Host failed there.
    ['Origin https, Host with :443', { origin: 'https://box', host: 'box:443' }, false, false],
    ['Origin http, Host with :80', { origin: 'http://box', host: 'box:80' }, false, false],
    ['Origin with its default port written', { origin: 'https://box:443', host: 'box' }, false, false],
    ['Origin null', { origin: 'null', host: 'box' }, false, true],
    ['Origin garbage', { origin: 'not a url', host: 'box' }, false, true],
    ['Origin of another scheme', { origin: 'file:///x', host: 'box' }, false, true],
    // Behind the proxy the page's origin is the proxy's name, which it forwards.
    [
      'Origin of the forwarded host, from the proxy',
      { origin: 'https://svc.example', host: '127.0.0.1:8080', 'x-forwarded-host': 'svc.example' },
      true,
      false,
    ],
    [
      'Origin of the forwarded host, not from the proxy',
      { origin: 'https://svc.example', host: '127.0.0.1:8080', 'x-forwarded-host': 'svc.example' },
      false,
      true,
    ],
    [
      'Origin of one forwarded host of several',
      { origin: 'https://b.example', host: 'x', 'x-forwarded-host': 'a.example, b.example' },
      true,
      false,
    ],
  ]

  it.each(table)('%s → cross-site: %s', (_name, headers, viaProxy, want) => {
    expect(isCrossSite(lookup(headers), () => viaProxy)).toBe(want)
  })

  it('refuses changes from another site with 403 auth.forbidden, and lets reads pass', () => {
    const cross = lookup({ 'sec-fetch-site': 'cross-site' })
    for (const method of ['POST', 'PUT', 'PATCH', 'DELETE', 'post']) {
      expect(crossSiteRefusal(method, cross)?.status, method).toBe(403)
      expect(crossSiteRefusal(method, cross)?.code, method).toBe('auth.forbidden')
    }
    for (const method of ['GET', 'HEAD', 'OPTIONS', 'get'])
      expect(crossSiteRefusal(method, cross)).toBeUndefined()
    expect(crossSiteRefusal('POST', lookup({ 'sec-fetch-site': 'same-origin' }))).toBeUndefined()
  })

  it('refuses reads too where asked (auth off on /api/*)', () => {
    const cross = lookup({ 'sec-fetch-site': 'cross-site' })
    expect(crossSiteRefusal('GET', cross, { reads: true })?.message).toMatch(/auth off/)
    expect(crossSiteRefusal('GET', lookup({}), { reads: true })).toBeUndefined()
  })
})
