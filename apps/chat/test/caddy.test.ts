/**
 * The chat app under `/chat/` behind a real Caddy with basic auth, auth on everywhere: the API wants
 * tokens and the proxy's secret, the chat app trusts only the proxy's `X-Forwarded-Email` and calls
 * the API with a v1-only token. Two people in two browsers chat and see only their own conversations;
 * the same header sent straight to the chat app from elsewhere is refused.
 */
import { programAvailable } from '@svc/testing'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { chromiumAvailable } from './browser'
import { type Caddy, startCaddyForChat } from './caddy'
import { type ChatInBrowser, lastAnswer, startChatInBrowser } from './chat-in-browser'
import { createChatToken } from './chat-token'
import { type LiveStack, partsAvailable, startLiveStack } from './live-stack'
import { send } from './serve-app'

const available =
  chromiumAvailable() && programAvailable('caddy', 'run ./scripts/setup.sh (apt: caddy)') && partsAvailable()
const SECRET = 'a-proxy-secret-only-caddy-knows'
const USERS = { alice: 'alice-password', bob: 'bob-password' }

describe.skipIf(!available)('the chat app under /chat/ behind Caddy', () => {
  let stack: LiveStack
  let app: ChatInBrowser
  let caddy: Caddy

  beforeAll(async () => {
    stack = await startLiveStack({ env: { SVC_AUTH_ENABLED: '1', SVC_PROXY_SECRET: SECRET } })
    app = await startChatInBrowser({
      env: {
        SVC_CHAT_API_URL: stack.api.url,
        SVC_CHAT_API_TOKEN: await createChatToken(stack.api.configDir),
        SVC_CHAT_TRUSTED_HEADER: 'X-Forwarded-Email',
        SVC_PROXY_SECRET: SECRET,
      },
      context: { httpCredentials: { username: 'alice', password: USERS.alice } },
    })
    caddy = await startCaddyForChat({ chatPort: app.chat.port, users: USERS, proxySecret: SECRET })
  }, 180_000)

  afterAll(async () => {
    await caddy?.[Symbol.asyncDispose]()
    await app?.[Symbol.asyncDispose]()
    await stack?.[Symbol.asyncDispose]()
  })

  it('redirects /chat to /chat/ and asks for the proxy’s login', async () => {
    const bare = await fetch(`${caddy.url}/chat`, { redirect: 'manual' })
    expect(bare.status).toBe(308)
    expect(bare.headers.get('location')).toBe('/chat/')
    expect((await fetch(`${caddy.url}/chat/`)).status).toBe(401)
  })

  it('serves the app at /chat/ signed in as the basic-auth user, and streams an answer', async () => {
    const page = await app.browser.context.newPage()
    const assets: string[] = []
    page.on('request', (r) => assets.push(new URL(r.url()).pathname))
    await page.goto(`${caddy.url}/chat/`)
    await page.getByText('alice', { exact: true }).waitFor()
    // Every request stayed under the prefix (relative URLs), none went to the site root.
    expect(assets.every((p) => p.startsWith('/chat/'))).toBe(true)
    expect(assets.some((p) => /^\/chat\/assets\/index-.*\.js$/.test(p))).toBe(true)

    await page.getByLabel('Model').selectOption('primary')
    await page.getByRole('textbox', { name: 'Message', exact: true }).fill('Hello from Alice')
    await page.getByRole('button', { name: 'Send' }).click()
    await lastAnswer(page)
    expect(page.url()).toMatch(/\/chat\/#\/c\/[\w-]{16}$/)
    await page.getByRole('link', { name: 'Hello from Alice' }).waitFor()
    const answer = page.getByRole('listitem').filter({ hasText: 'Assistant · primary' })
    expect(((await answer.textContent()) ?? '').length).toBeGreaterThan('Assistant · primary'.length)
    await page.reload()
    await page
      .getByRole('list', { name: 'Messages' })
      .getByText('Hello from Alice', { exact: true })
      .waitFor()
    await page.close()
  }, 60_000)

  it('shows Bob none of Alice’s conversations, and keeps his own apart', async () => {
    const bob = await app.browser.newContext({ httpCredentials: { username: 'bob', password: USERS.bob } })
    const page = await bob.newPage()
    await page.goto(`${caddy.url}/chat/`)
    await page.getByText('bob', { exact: true }).waitFor()
    await page.getByText('No conversations yet.').waitFor()
    expect(await page.getByRole('link', { name: 'Hello from Alice' }).count()).toBe(0)
    await page.getByLabel('Model').selectOption('primary')
    await page.getByRole('textbox', { name: 'Message', exact: true }).fill('Bob here')
    await page.getByRole('button', { name: 'Send' }).click()
    await page.getByRole('link', { name: 'Bob here' }).waitFor({ timeout: 30_000 })

    // Bob opening Alice's conversation by its address gets nothing of it.
    const alicePage = await app.browser.context.newPage()
    await alicePage.goto(`${caddy.url}/chat/`)
    await alicePage.getByRole('link', { name: 'Hello from Alice' }).click()
    const aliceUrl = alicePage.url()
    expect(await alicePage.getByRole('link', { name: 'Bob here' }).count()).toBe(0)
    const res = await page.request.get(`${caddy.url}/chat/api/conversations/${aliceUrl.split('/c/')[1]}`)
    expect(res.status()).toBe(404)
    await page.goto(aliceUrl)
    await page.getByRole('alert').filter({ hasText: 'no conversation' }).waitFor()
    expect(await page.getByText('Hello from Alice').count()).toBe(0)
    await bob.close()
    await alicePage.close()
  }, 60_000)

  it('ignores a forwarded identity that does not come through the proxy', async () => {
    // Straight to the chat app, with Alice's name and even the right secret, from another address.
    const spoof = await send(app.chat.port, {
      path: '/api/conversations',
      headers: { 'x-forwarded-email': 'alice', 'x-svc-proxy-secret': SECRET },
      from: '127.0.0.2',
    })
    expect(spoof.status).toBe(401)
    // From the proxy's address but without the secret: refused as well.
    const noSecret = await send(app.chat.port, {
      path: '/api/conversations',
      headers: { 'x-forwarded-email': 'alice' },
    })
    expect(noSecret.status).toBe(401)
    // Through Caddy a client's own X-Forwarded-Email is replaced by the signed-in user.
    const viaCaddy = await fetch(`${caddy.url}/chat/api/me`, {
      headers: {
        authorization: `Basic ${Buffer.from(`bob:${USERS.bob}`).toString('base64')}`,
        'x-forwarded-email': 'alice',
      },
    })
    expect(((await viaCaddy.json()) as { identity: string }).identity).toBe('bob')
  })

  it('shows no console errors', () => {
    // The one expected error: Bob's 404 for Alice's conversation.
    expect(app.browser.errors.filter((e) => !/404/.test(e))).toEqual([])
  })
})
