/**
 * The whole front door in a real browser: `svc install --auth=basic` renders its files into
 * a staging root; the real Caddy runs the Caddyfile it rendered (ports moved high, `tls internal`) in
 * front of the real API (api.env) and the real chat app (`svc chat` with chat.env), which talks to
 * real llama-server (a tiny GGUF). Debian's Chromium signs in through Caddy with basic auth, opens
 * the dashboard, creates a token through the copy-once dialog, then opens /chat/ and chats.
 *
 * It lives at the root because it drives three apps at once, with each app's own test helpers.
 */
import { createHash, X509Certificate } from 'node:crypto'
import { join } from 'node:path'
import {
  type ApiProcess,
  chromiumAvailable,
  findLlamaServer,
  launchChromium,
  programAvailable,
  requireLlamaServer,
  type TestBrowser,
  tempDirs,
  writeSvcConfig,
  writeTinyGguf,
} from '@svc/testing'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { buildFrontEnd } from '../apps/chat/test/front-end'
import type { CliService } from '../apps/cli/test/cli-service'
import { PASSWORD } from '../apps/cli/test/install-harness'
import {
  basicAuth,
  installBehindCaddy,
  PROXY_HOST,
  type ProxiedInstall,
} from '../apps/cli/test/proxied-install'
import { openPage } from '../apps/dashboard/test/browser'
import { buildDashboard } from '../apps/dashboard/test/fixture'

const present = [
  chromiumAvailable(),
  programAvailable('caddy', 'run ./scripts/setup.sh (apt: caddy)'),
  Boolean(requireLlamaServer()),
].every((p) => p === true)

const SIGNED_IN = { authorization: basicAuth('admin', PASSWORD) }
/** One thread, a small context and short answers: two cores are shared by everything in a run. */
const LIGHT = 'args = ["-c", "256", "-np", "1", "--threads", "1", "-n", "24"]\n'

/** Base64 sha256 of a certificate's public key, as Chromium's --ignore-certificate-errors-spki-list wants. */
function spkiHash(pem: string): string {
  const der = new X509Certificate(pem).publicKey.export({ type: 'spki', format: 'der' })
  return createHash('sha256').update(der).digest('base64')
}

const scratch = tempDirs('svc-front-door-')

describe.skipIf(!present)('the front door: Caddy, the dashboard and the chat app, in Chromium', () => {
  let setup: ProxiedInstall
  let api: ApiProcess
  let chat: CliService
  let chrome: TestBrowser
  let origin: string

  beforeAll(async () => {
    const work = await scratch.make()
    const dashboard = join(work, 'dashboard')
    await Promise.all([buildDashboard(dashboard), buildFrontEnd()])
    setup = await installBehindCaddy()
    origin = `https://${PROXY_HOST}:${setup.ports.https}`
    const model = await writeTinyGguf(join(work, 'tiny-chat.gguf'), { role: 'chat' })
    await writeSvcConfig(setup.root.path('/etc/svc'), { slots: { primary: LIGHT } })
    // Lines a person adds to api.env: where this checkout's dashboard build is, and the engine this
    // machine built (the service's own engine cache in the staging root is empty).
    api = await setup.startApi({ SVC_DASHBOARD_DIR: dashboard, SVC_LLAMA_SERVER: findLlamaServer() ?? '' })
    chat = await setup.startChat()
    // Loaded as the admin would: through Caddy, signed in with basic auth.
    const loaded = await setup.get('/api/slots/primary/load?wait=true', {
      method: 'POST',
      headers: { ...SIGNED_IN, 'content-type': 'application/json' },
      body: JSON.stringify({ model: model.path }),
    })
    if (loaded.status !== 200)
      throw new Error(`load: ${loaded.status} ${loaded.body}\n${api.output().slice(-3000)}`)
    chrome = await launchChromium({
      autoplay: true,
      args: [
        `--host-resolver-rules=MAP ${PROXY_HOST} 127.0.0.1`,
        // Trust exactly Caddy's local CA (its intermediate signs the site's certificate), nothing else.
        `--ignore-certificate-errors-spki-list=${spkiHash(setup.caddy.intermediate)}`,
      ],
    })
  }, 240_000)

  afterAll(async () => {
    await chrome?.[Symbol.asyncDispose]()
    await chat?.stop()
    await api?.stop()
    await setup?.[Symbol.asyncDispose]()
    await scratch.removeAll()
  })

  it('without credentials Caddy asks for them; a wrong password gets nothing', async () => {
    // Headless Chromium cannot answer a Basic challenge by hand, so a page of the origin that needs
    // no basic auth (/v1/models: bearer tokens there, and the model list is open) asks what a
    // browser without the right password would get.
    const anonymous = await openPage(chrome.browser)
    try {
      expect((await anonymous.page.goto(`${origin}/v1/models`))?.status()).toBe(200)
      const answers = await anonymous.page.evaluate(async () => {
        const wrong = `Basic ${btoa('admin:not the password')}`
        const replies = await Promise.all([
          fetch('/', { credentials: 'omit' }),
          fetch('/chat/', { credentials: 'omit' }),
          fetch('/', { credentials: 'omit', headers: { authorization: wrong } }),
          fetch('/chat/', { credentials: 'omit', headers: { authorization: wrong } }),
        ])
        return Promise.all(
          replies.map(async (r) => ({
            status: r.status,
            challenge: r.headers.get('www-authenticate'),
            page: (await r.text()).includes('<script'),
          })),
        )
      })
      expect(answers).toEqual(Array(4).fill({ status: 401, challenge: 'Basic realm="svc"', page: false }))
    } finally {
      await anonymous.context.close()
    }
  })

  it('signs in with basic auth, opens the dashboard as admin, creates a token shown once, then chats in /chat/', async () => {
    const w = await openPage(chrome.browser, 1280, {
      httpCredentials: { username: 'admin', password: PASSWORD },
    })
    const { page, context, errors } = w
    try {
      // The dashboard, signed in by the proxy: no token asked for, the identity is the basic-auth user.
      const res = await page.goto(`${origin}/`)
      expect(res?.status()).toBe(200)
      await page.getByRole('heading', { name: 'Slots', level: 1 }).waitFor()
      await page.getByText('admin · admin').waitFor()
      await page.getByRole('status', { name: 'Live updates: Live' }).waitFor()
      await page.getByRole('article', { name: 'primary', exact: true }).getByText('tiny-chat').waitFor()
      expect(await page.getByRole('heading', { name: 'Sign in to svc' }).count()).toBe(0)
      // What the page fetches carries the browser's credentials; without them Caddy refuses.
      const anonymous = await page.evaluate(
        async () => (await fetch('/api/slots', { credentials: 'omit' })).status,
      )
      expect(anonymous).toBe(401)
      // That refusal is the only console error so far (the browser logs every failed load).
      await expect.poll(() => errors.length, { timeout: 10_000 }).toBe(1)
      expect(errors.splice(0)).toEqual([
        'console: Failed to load resource: the server responded with a status of 401 ()',
      ])

      // A token from Settings: the copy-once dialog shows it once, then it is gone from the page.
      await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin })
      await page.getByRole('link', { name: 'Settings' }).click()
      await page.getByLabel('Label').fill('laptop')
      await page.getByLabel('Scope').selectOption('v1-only')
      await page.getByRole('button', { name: 'Create token' }).click()
      const dialog = page.getByRole('dialog', { name: 'Token "laptop" created' })
      await dialog.getByText(/shown only once/).waitFor()
      await dialog.getByRole('button', { name: 'Copy' }).click()
      await dialog.getByRole('button', { name: 'Copied' }).waitFor()
      const token = await page.evaluate(() => navigator.clipboard.readText())
      expect(token).toMatch(/^svc_[A-Za-z0-9]{12}\.[A-Za-z0-9_-]{43}$/)
      await dialog.getByRole('button', { name: 'Close' }).click()
      await dialog.waitFor({ state: 'detached' })
      await page.evaluate(() => navigator.clipboard.writeText(''))
      expect(await page.evaluate((t) => document.documentElement.outerHTML.includes(t), token)).toBe(false)
      await page.getByRole('row').filter({ hasText: 'laptop' }).getByText('v1-only').waitFor()
      // The token works through the proxy without basic auth, as a program would use it.
      const chatBody = { model: 'primary', messages: [{ role: 'user', content: 'hi' }], max_tokens: 2 }
      const withToken = await setup.get('/v1/chat/completions', {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify(chatBody),
      })
      expect(withToken.status, withToken.body).toBe(200)

      // The chat app under /chat/, signed in as the same person, chatting with llama-server.
      expect((await page.goto(`${origin}/chat/`))?.status()).toBe(200)
      await page
        .locator('.chat-me')
        .filter({ hasText: /^admin$/ })
        .waitFor()
      await page.getByLabel('Model').selectOption('primary')
      await page.getByRole('textbox', { name: 'Message', exact: true }).fill('Hello through the proxy')
      await page.getByRole('button', { name: 'Send' }).click()
      // A finished answer has its actions menu (Copy, Edit, Regenerate live in it).
      const answer = page
        .getByRole('list', { name: 'Messages' })
        .getByRole('listitem')
        .filter({ hasText: 'Assistant' })
        .last()
      await answer.getByRole('button', { name: 'Message actions' }).waitFor({ timeout: 60_000 })
      expect(((await answer.textContent()) ?? '').length).toBeGreaterThan('Assistant · primary'.length)
      // Kept by the chat app for this user (as the browser, through the proxy).
      const saved = await page.evaluate(async () => {
        const r = await fetch('api/conversations')
        return (await r.json()) as { conversations: { title: string }[] }
      })
      expect(saved.conversations.map((c) => c.title)).toEqual(['Hello through the proxy'])
      expect(errors).toEqual([])
    } finally {
      await context.close()
    }
  }, 180_000)
})
