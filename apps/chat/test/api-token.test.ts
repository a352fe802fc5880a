/**
 * The chat app talks to svc with its own token, server-side only. A missing or refused token is a
 * clear message on the page, not a blank one; a v1-only token is enough; the token never reaches the
 * browser.
 */
import { type ApiProcess, startApi } from '@svc/testing'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type Browser, chromiumAvailable, launchBrowser } from './browser'
import { startChatProcess } from './chat-process'
import { createChatToken } from './chat-token'
import { buildFrontEnd } from './front-end'

const hasChromium = chromiumAvailable()

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
      env: { SVC_CHAT_API_URL: api.url, SVC_CHAT_API_TOKEN: token },
    })
    const res = await fetch(`${chat.url}/api/models`)
    expect(res.status).toBe(200)
    const body = (await res.json()) as { chat: string[]; models: { id: string; loaded: boolean }[] }
    expect(body.chat).toContain('primary')
    expect(body.models.find((m) => m.id === 'primary')).toMatchObject({ loaded: false, state: 'offline' })
    for (const path of ['/api/models', '/api/me', '/api/conversations', '/']) {
      const text = await (await fetch(chat.url + path)).text()
      expect([path, text.includes(token)]).toEqual([path, false])
    }
    expect(chat.output()).not.toContain(token)
  })

  it('says what to fix when it has no token', async () => {
    await using chat = await startChatProcess({ env: { SVC_CHAT_API_URL: api.url } })
    const res = await fetch(`${chat.url}/api/models`)
    expect(res.status).toBe(502)
    expect(((await res.json()) as { error: { code: string; message: string } }).error).toMatchObject({
      code: 'upstream.auth',
      message: expect.stringContaining('set SVC_CHAT_API_TOKEN'),
    })
  })

  it('says what to fix when its token is refused', async () => {
    await using chat = await startChatProcess({
      env: { SVC_CHAT_API_URL: api.url, SVC_CHAT_API_TOKEN: `${token.slice(0, -4)}AAAA` },
    })
    const res = await fetch(`${chat.url}/api/models`)
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
      expect(await page.getByRole('button', { name: 'Send' }).isDisabled()).toBe(true)
      await page.close()
    })
  })
})
