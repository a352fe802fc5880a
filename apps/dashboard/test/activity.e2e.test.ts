/**
 * The Activity page in a real browser against the real API and llama-server: a streamed chat shows
 * up in flight (live, on top), then its row carries the status, time to first token, tokens and
 * tokens/s the API recorded; at 1280×800 and at 390×844 (cards, no sideways scroll). Body capture is
 * off until an admin switches it on, and what it kept shows with the credentials redacted.
 */
import { saveScreenshot, VIEWPORTS } from '@svc/testing'
import type { Locator, Page } from 'playwright-core'
import { beforeAll, describe, expect, it } from 'vitest'
import { useDashboard } from './dashboard-session'
import { partsPresent } from './fixture'

interface Entry {
  id: string
  status: number | null
  ttft_ms: number | null
  tokens_out: number | null
  tokens_per_s: number | null
}

const SUITE = 'activity'
/** Long enough on the suite's model (one thread) to be seen in flight for a while. */
const LONG = 1000

describe.skipIf(!partsPresent())('the Activity page in a real browser', () => {
  const session = useDashboard()
  let token = ''
  beforeAll(async () => {
    await session.fx.load('primary', 'tiny-chat')
    const made = await session.fx.call('/api/auth/tokens', { method: 'POST', json: { label: 'phone app' } })
    token = ((await made.json()) as { token: string }).token
  }, 120_000)

  /** A streamed chat of `LONG` tokens as the phone app, held open until `finish()` reads it to its end. */
  const startStream = async (id: string) => {
    const res = await session.fx.call('/v1/chat/completions', {
      method: 'POST',
      token,
      headers: { 'x-request-id': id },
      json: {
        model: 'primary',
        messages: [{ role: 'user', content: 'Tell me a long story' }],
        max_tokens: LONG,
        ignore_eos: true,
        stream: true,
      },
    })
    expect(res.status).toBe(200)
    const reader = res.body!.getReader()
    await reader.read()
    return {
      finish: async () => {
        while (!(await reader.read()).done) {}
      },
    }
  }
  const entryOf = async (id: string): Promise<Entry> => {
    const answer = (await (await session.fx.call('/api/activity')).json()) as { recent: Entry[] }
    const found = answer.recent.find((e) => e.id === id)
    if (!found) throw new Error(`request ${id} is not in GET /api/activity`)
    return found
  }
  const open = async (width: number, height: number): Promise<Page> => {
    const { page } = await session.signIn(session.fx.tokens.admin, width)
    await page.setViewportSize({ width, height })
    await page.getByRole('link', { name: 'Activity' }).click()
    await page.getByRole('heading', { name: 'Activity', level: 1 }).waitFor()
    return page
  }
  const rows = (page: Page): Locator => page.getByRole('row').filter({ hasText: 'phone app' })
  const noSidewaysScroll = (page: Page) =>
    page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth)

  it('shows a streamed request in flight, then its figures (1280×800)', async () => {
    const { width, height } = VIEWPORTS.desktop
    const page = await open(width, height)
    // Capture is off until an admin turns it on.
    await expect(page.getByRole('switch', { name: 'Capture bodies' }).isChecked()).resolves.toBe(false)
    // Something finished first, so the in-flight row has a row under it.
    const quick = { model: 'primary', messages: [{ role: 'user', content: 'hi' }], max_tokens: 2 }
    expect((await session.fx.call('/v1/chat/completions', { method: 'POST', json: quick })).status).toBe(200)
    await page.getByRole('row').filter({ hasText: 'e2e-admin' }).first().waitFor()

    const stream = await startStream('e2e-desktop-1')
    const live = rows(page).first()
    await live.getByText('live').waitFor()
    const body = page.locator('tbody').getByRole('row')
    await expect(body.first().textContent()).resolves.toContain('phone app')
    const liveBox = await live.boundingBox()
    const finishedBox = await body.nth(1).boundingBox()
    expect(liveBox!.y).toBeLessThan(finishedBox!.y) // in flight on top
    expect(await noSidewaysScroll(page)).toBeLessThanOrEqual(0)
    await saveScreenshot(page, SUITE, 'activity-in-flight')

    await stream.finish()
    const entry = await entryOf('e2e-desktop-1')
    expect(entry).toMatchObject({ status: 200, tokens_out: LONG })
    const done = rows(page).first()
    await done.getByRole('cell').filter({ hasText: /^200/ }).waitFor()
    const cells = await done.getByRole('cell').allTextContents()
    // Caller, Model, Surface, Status, Queue, Load, TTFT, In, Out, Tok/s, Bodies
    expect(cells[0]).toBe('phone app')
    expect(cells[2]).toBe('chat')
    expect(cells[3]).toMatch(/^200 · /)
    expect(cells[6]).toMatch(/^\d+ ms$|^\d+\.\d s$/)
    expect(cells[8]).toBe(LONG.toLocaleString('en'))
    expect(cells[9]).toBe(entry.tokens_per_s!.toFixed(1))
    expect(Number(cells[9])).toBeGreaterThan(0)
    expect(await done.getByText('live').count()).toBe(0)
    expect(await noSidewaysScroll(page)).toBeLessThanOrEqual(0)
    await saveScreenshot(page, SUITE, 'activity-finished')
  }, 120_000)

  it('fits a phone: each request a card, no sideways scroll (390×844)', async () => {
    const { width, height } = VIEWPORTS.phone
    const page = await open(width, height)
    await rows(page).first().waitFor()
    const stream = await startStream('e2e-phone-1')
    const card = rows(page).first()
    await card.getByText('live').waitFor()
    expect(await noSidewaysScroll(page)).toBeLessThanOrEqual(0)
    const box = (await card.boundingBox())!
    expect(box.x).toBeGreaterThanOrEqual(0)
    expect(box.x + box.width).toBeLessThanOrEqual(width)
    await saveScreenshot(page, SUITE, 'activity-phone-in-flight')

    await stream.finish()
    await card.getByRole('cell').filter({ hasText: /^200/ }).waitFor()
    // Every figure of the card is on screen, inside the card, with its label.
    for (const label of ['Caller', 'Model', 'Status', 'TTFT', 'Out', 'Tok/s']) {
      const cell = card.locator(`[data-label="${label}"]`)
      expect(await cell.isVisible(), label).toBe(true)
      const c = (await cell.boundingBox())!
      expect(c.x, label).toBeGreaterThanOrEqual(box.x)
      expect(c.x + c.width, label).toBeLessThanOrEqual(width)
    }
    expect(await card.locator('[data-label="Out"]').textContent()).toContain(LONG.toLocaleString('en'))
    expect(await noSidewaysScroll(page)).toBeLessThanOrEqual(0)
    await saveScreenshot(page, SUITE, 'activity-phone-finished')
  }, 120_000)

  it('keeps bodies only once an admin switches capture on, with credentials redacted', async () => {
    const { width, height } = VIEWPORTS.desktop
    const page = await open(width, height)
    const capture = page.getByRole('switch', { name: 'Capture bodies' })
    await capture.click()
    await page.getByText(/^On until \d\d:\d\d:\d\d/).waitFor()
    const secret = 'sk-live-abcdefghijklmnop'
    const chat = {
      model: 'primary',
      messages: [{ role: 'user', content: 'keep me' }],
      max_tokens: 3,
      api_key: secret,
    }
    const sent = await session.fx.call('/v1/chat/completions', { method: 'POST', json: chat, token })
    expect(sent.status).toBe(200)
    const row = rows(page).first()
    await row.getByRole('button', { name: /^View bodies/ }).click()
    const dialog = page.getByRole('dialog')
    await dialog.getByText('"keep me"').waitFor()
    await dialog.getByText('Headers', { exact: false }).first().click()
    const text = (await dialog.textContent()) ?? ''
    expect(text).toContain('[redacted]')
    expect(text).not.toContain(secret)
    expect(text).not.toContain(token.split('.')[1]!)
    await saveScreenshot(page, SUITE, 'activity-captured-entry')
    await dialog.getByRole('button', { name: 'Close' }).click()
    await capture.click()
    await page.getByText(/^Off · /).waitFor()
  }, 120_000)

  it('shows a reader its own requests only, and no capture switch', async () => {
    const { page } = await session.signIn(session.fx.tokens.readOnly, VIEWPORTS.desktop.width)
    await page.goto(`${session.fx.api.url}/activity`)
    await page.getByText('You see the requests of your own token only.').waitFor()
    await page.getByText('No requests yet.', { exact: false }).waitFor()
    expect(await page.getByRole('switch', { name: 'Capture bodies' }).count()).toBe(0)
    expect(await rows(page).count()).toBe(0)
    await saveScreenshot(page, SUITE, 'activity-reader-empty')
  }, 60_000)
})
