/**
 * The chat app talks to svc with its own token, server-side only, and only for people its proxy signs
 * in. A missing or refused token is a clear message on the page, not a blank one; a v1-only token is
 * enough; the token never reaches the browser; without a proxy identity the token serves nobody; the
 * chat app listens on loopback unless told otherwise.
 */
import { type ApiProcess, startApi } from '@svc/testing'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type Browser, chromiumAvailable, launchBrowser } from './browser'
import { listeningAddresses, startChatProcess } from './chat-process'
import { createChatToken } from './chat-token'
import { buildFrontEnd } from './front-end'

const hasChromium = chromiumAvailable()
const SECRET = 'proxy-secret-for-token-tests'
/** The chat app behind the proxy: it trusts the forwarded email only with the proxy's secret. */
const BEHIND_PROXY = { SVC_CHAT_TRUSTED_HEADER: 'X-Forwarded-Email', SVC_PROXY_SECRET: SECRET }
/** What the proxy adds to a signed-in person's request. */
const SIGNED_IN = { 'x-forwarded-email': 'alice@example.com', 'x-svc-proxy-secret': SECRET }

describe('the chat app’s token for the API', () => {
  let api: ApiProcess
  let token: string

  beforeAll(async () => {
    api = await startApi({ env: { SVC_AUTH_ENABLED: '1' } })
    token = await createChatToken(api.configDir)
    expect(token).toMatch(/^svc_/)
  }, 60_000)
  afterAll(async () => {
    await api?.[Symbol.asyncDispose]()
  })

  it('reads the models with a v1-only token and never shows the token to the browser', async () => {
    await using chat = await startChatProcess({
      env: { SVC_CHAT_API_URL: api.url, SVC_CHAT_API_TOKEN: token, ...BEHIND_PROXY },
    })
    const res = await fetch(`${chat.url}/api/models`, { headers: SIGNED_IN })
    expect(res.status).toBe(200)
    const body = (await res.json()) as { chat: string[]; models: { id: string; loaded: boolean }[] }
    expect(body.chat).toContain('primary')
    expect(body.models.find((m) => m.id === 'primary')).toMatchObject({ loaded: false, state: 'offline' })
    for (const path of ['/api/models', '/api/me', '/api/conversations', '/']) {
      const text = await (await fetch(chat.url + path, { headers: SIGNED_IN })).text()
      expect([path, text.includes(token)]).toEqual([path, false])
    }
    expect(chat.output()).not.toContain(token)
  })

  it('asks an admin to load a model its v1-only token may not load, naming no command', async () => {
    await using chat = await startChatProcess({
      env: { SVC_CHAT_API_URL: api.url, SVC_CHAT_API_TOKEN: token, ...BEHIND_PROXY },
    })
    const res = await fetch(`${chat.url}/api/models/load`, {
      method: 'POST',
      headers: { ...SIGNED_IN, 'content-type': 'application/json', 'sec-fetch-site': 'same-origin' },
      body: JSON.stringify({ model: 'primary' }),
    })
    const body = (await res.json()) as { error: { code: string; message: string } }
    expect([res.status, body.error.code, body.error.message]).toEqual([
      403,
      'auth.forbidden',
      'ask an admin to load primary',
    ])
    const models = (await (await fetch(`${chat.url}/api/models`, { headers: SIGNED_IN })).json()) as {
      models: { id: string; loaded: boolean }[]
    }
    expect(models.models.find((m) => m.id === 'primary')?.loaded).toBe(false)
  })

  it('spends its token for nobody when no proxy identity is configured, and says what to set', async () => {
    await using chat = await startChatProcess({
      env: { SVC_CHAT_API_URL: api.url, SVC_CHAT_API_TOKEN: token, SVC_CHAT_HOST: '' },
    })
    const port = Number(new URL(chat.url).port)
    expect(await listeningAddresses(port)).toEqual(['127.0.0.1'])
    const attempts: [string, string, Record<string, string>][] = [
      ['GET', '/api/models', {}],
      ['GET', '/api/me', {}],
      ['GET', '/api/conversations', {}],
      ['POST', '/api/conversations', { 'content-type': 'application/json' }],
      // A forwarded identity counts for nothing when none is configured.
      ['GET', '/api/models', SIGNED_IN],
    ]
    for (const [method, path, headers] of attempts) {
      const res = await fetch(chat.url + path, {
        method,
        headers,
        ...(method === 'POST' ? { body: '{}' } : {}),
      })
      const body = (await res.json()) as { error: { code: string; message: string; type: string } }
      expect([method, path, res.status, body.error.code]).toEqual([method, path, 401, 'auth.required'])
      expect(body.error.message).toContain('set SVC_CHAT_TRUSTED_HEADER')
      expect(body.error.message).toContain('or remove SVC_CHAT_API_TOKEN')
    }
    const page = await fetch(`${chat.url}/`, { headers: { accept: 'text/html' } })
    expect(page.status).toBe(401)
    expect(await page.text()).toContain('SVC_CHAT_TRUSTED_HEADER')
    expect((await fetch(`${chat.url}/api/health`)).status).toBe(200)
    expect(chat.output()).toContain('every request will be refused')
  })

  it('listens on loopback only unless told otherwise, also with auth off', async () => {
    await using local = await startChatProcess({ env: { SVC_CHAT_API_URL: api.url, SVC_CHAT_HOST: '' } })
    expect(await listeningAddresses(Number(new URL(local.url).port))).toEqual(['127.0.0.1'])
    // Told otherwise (another loopback address: tests never listen beyond this machine).
    await using told = await startChatProcess({
      env: { SVC_CHAT_API_URL: api.url, SVC_CHAT_HOST: '127.0.0.2' },
    })
    expect(await listeningAddresses(Number(new URL(told.url).port))).toEqual(['127.0.0.2'])
  })

  it('says what to fix when it has no token', async () => {
    await using chat = await startChatProcess({ env: { SVC_CHAT_API_URL: api.url } })
    const res = await fetch(`${chat.url}/api/models`)
    expect(res.status).toBe(502)
    expect(((await res.json()) as { error: { code: string; message: string } }).error).toMatchObject({
      code: 'upstream.auth',
      message: expect.stringContaining('set SVC_CHAT_API_TOKEN'),
    })
    // Not the token alone: the message names the proxy identity that must come with it.
    expect(
      ((await (await fetch(`${chat.url}/api/models`)).json()) as { error: { message: string } }).error
        .message,
    ).toContain('together with SVC_CHAT_TRUSTED_HEADER and SVC_PROXY_SECRET')
  })

  it('says what to fix when its token is refused', async () => {
    await using chat = await startChatProcess({
      env: { SVC_CHAT_API_URL: api.url, SVC_CHAT_API_TOKEN: `${token.slice(0, -4)}AAAA`, ...BEHIND_PROXY },
    })
    const res = await fetch(`${chat.url}/api/models`, { headers: SIGNED_IN })
    expect(res.status).toBe(502)
    const error = ((await res.json()) as { error: { code: string; message: string } }).error
    expect(error.code).toBe('upstream.auth')
    expect(error.message).toContain('refused the chat app’s token (SVC_CHAT_API_TOKEN)')
  })

  it('says so when the API cannot be reached', async () => {
    await using chat = await startChatProcess({ env: { SVC_CHAT_API_URL: 'http://127.0.0.1:9' } })
    const res = await fetch(`${chat.url}/api/models`)
    expect(res.status).toBe(502)
    expect(((await res.json()) as { error: { message: string } }).error.message).toContain(
      'cannot reach the svc API at http://127.0.0.1:9 (SVC_CHAT_API_URL)',
    )
  })

  describe.skipIf(!hasChromium)('in the browser', () => {
    let browser: Browser
    beforeAll(async () => {
      await buildFrontEnd()
      browser = await launchBrowser()
    }, 120_000)
    afterAll(async () => {
      await browser?.[Symbol.asyncDispose]()
    })

    it('shows the missing token as a banner and keeps Send disabled', async () => {
      await using chat = await startChatProcess({ env: { SVC_CHAT_API_URL: api.url } })
      const page = await browser.context.newPage()
      await page.goto(chat.url)
      const banner = page.getByRole('alert').filter({ hasText: 'SVC_CHAT_API_TOKEN' })
      await banner.waitFor()
      expect(await banner.textContent()).toContain('svc requires a token and the chat app has none')
      // What to fix, for the administrator, without a command to run.
      expect(await banner.textContent()).not.toMatch(/svc (install|token)|`/)
      expect(await page.getByRole('button', { name: 'Send' }).isDisabled()).toBe(true)
      await page.close()
    })
  })
})
