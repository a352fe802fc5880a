/**
 * Who may do what in the dashboard, in a real browser: the proxy's forwarded identity,
 * a token shown once and revoked, and a read-only token's disabled controls. Same API and browser
 * setup as dashboard.e2e.test.ts (dashboard-session.ts).
 */
import { beforeAll, describe, expect, it } from 'vitest'
import { card, openPage } from './browser'
import { useDashboard } from './dashboard-session'
import { partsPresent } from './fixture'

describe.skipIf(!partsPresent())('access to the dashboard in a real browser', () => {
  // tts holds espeak-ng (its Unload must show disabled to a reader); primary holds the tiny chat
  // model that the token test's requests go to.
  const session = useDashboard({ media: true })
  beforeAll(() => session.fx.load('primary', 'tiny-chat'), 120_000)

  it('behind the proxy, the forwarded identity is admin and no token is asked for', async () => {
    // What Caddy does after basic auth: a trusted loopback peer sets X-Forwarded-Email.
    const w = await openPage(session.chrome.browser)
    session.track(w)
    await w.context.setExtraHTTPHeaders({ 'X-Forwarded-Email': 'ada@example.com' })
    await w.page.goto(session.fx.api.url)
    await w.page.getByRole('heading', { name: 'Slots', level: 1 }).waitFor()
    await w.page.getByText('admin · ada@example.com').waitFor()
    expect(await card(w.page, 'tts').getByRole('button', { name: 'Load…' }).isEnabled()).toBe(true)
    expect(await w.page.getByRole('button', { name: 'Sign out' }).count()).toBe(0)
    expect(w.errors).toEqual([])
  }, 60_000)

  it('creates a token shown once, leaves no trace of it, and revokes it from the UI', async () => {
    const { page, context, errors } = await session.signIn(session.fx.tokens.admin)
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: session.fx.api.url })
    await page.getByRole('link', { name: 'Settings' }).click()
    await page.getByLabel('Label').fill('e2e-ci')
    await page.getByLabel('Scope').selectOption('v1-only')
    await page.getByRole('button', { name: 'Create token' }).click()
    const dialog = page.getByRole('dialog', { name: 'Token "e2e-ci" created' })
    await dialog.waitFor()
    await dialog.getByText(/shown only once/).waitFor()
    await dialog.getByRole('button', { name: 'Copy' }).click()
    await dialog.getByRole('button', { name: 'Copied' }).waitFor()
    const token = await page.evaluate(() => navigator.clipboard.readText())
    expect(token).toMatch(/^svc_[A-Za-z0-9]{12}\.[A-Za-z0-9_-]{43}$/)
    expect(await dialog.textContent()).toContain(token)
    await dialog.getByRole('button', { name: 'Close' }).click()
    await dialog.waitFor({ state: 'detached' })
    await page.evaluate(() => navigator.clipboard.writeText(''))

    // Nowhere in the DOM, nor in any storage of the page.
    const traces = await page.evaluate((t) => {
      const storage = (s: Storage) =>
        Object.keys(s)
          .map((k) => `${k}=${s.getItem(k)}`)
          .join('\n')
      return {
        dom: document.documentElement.outerHTML.includes(t),
        session: storage(sessionStorage).includes(t),
        local: storage(localStorage).includes(t),
        cookie: document.cookie.includes(t),
      }
    }, token)
    expect(traces).toEqual({ dom: false, session: false, local: false, cookie: false })

    // The token works…
    const chat = { model: 'primary', messages: [{ role: 'user', content: 'hi' }], max_tokens: 2 }
    expect(
      (await session.fx.call('/v1/chat/completions', { method: 'POST', json: chat, token })).status,
    ).toBe(200)
    // …is listed without its secret, and is revoked from the UI.
    const row = page.getByRole('row').filter({ hasText: 'e2e-ci' })
    await row.getByText('v1-only').waitFor()
    await row.getByRole('button', { name: 'Revoke e2e-ci' }).click()
    await page.getByRole('dialog', { name: 'Revoke e2e-ci?' }).getByRole('button', { name: 'Revoke' }).click()
    await row.waitFor({ state: 'detached' })
    const refused = await session.fx.call('/v1/chat/completions', { method: 'POST', json: chat, token })
    expect(refused.status).toBe(401)
    expect(errors).toEqual([])
  }, 60_000)

  it('with a read-only token, the mutating controls are disabled with the reason, and the API refuses them anyway', async () => {
    const { page, errors } = await session.signIn(session.fx.tokens.readOnly)
    await page.getByText('read-only · e2e-reader').waitFor()
    await page
      .getByRole('note')
      .filter({ hasText: 'Your read-only token does not allow changing slots and models' })
      .first()
      .waitFor()
    for (const slot of ['primary', 'tts', 'img']) {
      const c = card(page, slot)
      expect(await c.getByRole('button', { name: 'Load…' }).isDisabled(), slot).toBe(true)
      expect(await c.getByRole('button', { name: 'Settings' }).isDisabled(), slot).toBe(true)
    }
    expect(await card(page, 'tts').getByRole('button', { name: 'Unload' }).isDisabled()).toBe(true)
    expect(await page.getByRole('button', { name: 'New custom slot' }).isDisabled()).toBe(true)
    await page.getByRole('link', { name: 'Models' }).click()
    await page.getByRole('button', { name: 'Pull qwen3-0.6b-q8_0' }).waitFor()
    expect(await page.getByRole('button', { name: 'Pull qwen3-0.6b-q8_0' }).isDisabled()).toBe(true)
    await page.getByRole('link', { name: 'Settings' }).click()
    await page.getByText('Your read-only token does not allow managing tokens').waitFor()
    expect(await page.getByRole('button', { name: 'Create token' }).count()).toBe(0)
    // The server refuses what the UI disabled.
    const asReader = { token: session.fx.tokens.readOnly }
    expect((await session.fx.call('/api/slots/tts/unload', { method: 'POST', ...asReader })).status).toBe(403)
    expect(
      (await session.fx.call('/api/models/qwen3-0.6b-q8_0/pull', { method: 'POST', ...asReader })).status,
    ).toBe(403)
    expect((await session.fx.call('/api/auth/tokens', asReader)).status).toBe(403)
    expect(['ready', 'idle']).toContain((await (await session.fx.call('/api/slots/tts')).json()).state)
    expect(errors).toEqual([])
  }, 60_000)
})
