/**
 * A real browser (Debian's Chromium, headless) signs in through the real Caddy with basic
 * auth, in front of the real API started by the installer's env. It resolves the name to 127.0.0.1
 * with a host-resolver rule, as a client with a hosts-file line would.
 */
import { chromiumAvailable, launchChromium, programAvailable, type TestBrowser } from '@svc/testing'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { PASSWORD } from './install-harness'
import { installBehindCaddy, PROXY_HOST, type ProxiedInstall } from './proxied-install'

const skip = !chromiumAvailable() || !programAvailable('caddy', 'apt-get install caddy (scripts/setup.sh)')

describe.skipIf(skip)('a browser behind the installed proxy', () => {
  let setup: ProxiedInstall
  let api: Awaited<ReturnType<ProxiedInstall['startApi']>>
  let chrome: TestBrowser
  let origin: string

  beforeAll(async () => {
    setup = await installBehindCaddy()
    api = await setup.startApi()
    origin = `https://${PROXY_HOST}:${setup.ports.https}`
    chrome = await launchChromium({ args: [`--host-resolver-rules=MAP ${PROXY_HOST} 127.0.0.1`] })
  }, 120_000)

  afterAll(async () => {
    await chrome?.[Symbol.asyncDispose]()
    await api?.stop()
    await setup?.[Symbol.asyncDispose]()
  })

  // The certificate chain was checked against Caddy's root by the HTTPS client of the proxy tests;
  // a fresh browser profile does not trust that root, so certificate errors are ignored here.
  const context = (credentials?: { username: string; password: string }) =>
    chrome.browser.newContext({
      ignoreHTTPSErrors: true,
      ...(credentials ? { httpCredentials: credentials } : {}),
    })

  it('signs in with basic auth; the API sees the browser’s user as admin, on pages and on the page’s own requests', async () => {
    await using ctx = await context({ username: 'admin', password: PASSWORD })
    const page = await ctx.newPage()
    const res = await page.goto(`${origin}/api/auth/status`)
    expect(res?.status()).toBe(200)
    expect(await res?.json()).toMatchObject({ caller: { via: 'proxy', scope: 'admin', email: 'admin' } })

    // same-origin requests from the page: a read, a /v1 call and a change (a token, shown once)
    const results = await page.evaluate(async () => {
      const anonymous = await fetch('/api/slots', { credentials: 'omit' })
      const slots = await fetch('/api/slots')
      const v1 = await fetch('/v1/chat/completions', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'nothing-loaded', messages: [{ role: 'user', content: 'hi' }] }),
      })
      const created = await fetch('/api/auth/tokens', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ label: 'from the browser', scope: 'v1-only' }),
      })
      return {
        anonymous: [anonymous.status, anonymous.headers.get('www-authenticate')],
        slots: slots.status,
        v1: [v1.status, ((await v1.json()) as { error: { code: string } }).error.code],
        created: [created.status, ((await created.json()) as { token?: string }).token?.slice(0, 4)],
      }
    })
    expect(results.anonymous).toEqual([401, 'Basic realm="svc"'])
    expect(results.slots).toBe(200)
    // authenticated (else 401 auth.required): the model is simply unknown
    expect(results.v1).toEqual([404, 'model.not_found'])
    expect(results.created).toEqual([201, 'svc_'])
  })
})
