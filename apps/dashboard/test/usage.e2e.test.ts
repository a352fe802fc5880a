/**
 * The Usage page and the token dialog's limits in a real browser, against the real API and
 * llama-server: the chart is drawn from the numbers `GET /api/usage` gives, the tables match it,
 * and limits set in Settings are what the API then enforces.
 */
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { beforeAll, describe, expect, it } from 'vitest'
import { useDashboard } from './dashboard-session'
import { partsPresent } from './fixture'

interface Row {
  [key: string]: string | number | null
}
interface Answer {
  rows: Row[]
  totals: Row
}

describe.skipIf(!partsPresent())('the Usage page in a real browser', () => {
  const session = useDashboard()
  let token = ''
  beforeAll(async () => {
    await session.fx.load('primary', 'tiny-chat')
    const made = await session.fx.call('/api/auth/tokens', {
      method: 'POST',
      json: { label: 'kitchen tablet' },
    })
    token = ((await made.json()) as { token: string }).token
    for (const max_tokens of [3, 5, 2]) {
      const chat = { model: 'primary', messages: [{ role: 'user', content: 'hello' }], max_tokens }
      const r = await session.fx.call('/v1/chat/completions', { method: 'POST', json: chat, token })
      expect(r.status).toBe(200)
    }
  }, 120_000)

  const usage = async (query: string) =>
    (await (await session.fx.call(`/api/usage?${query}`)).json()) as Answer

  it('draws tokens per day to scale from the API\u2019s numbers, and its tables match GET /api/usage', async () => {
    // The page takes "today" (UTC) when it loads; the test reads the page's range from its bars and
    // asks the API for the same, so a run across midnight compares like with like.
    const dayBefore = utcDay()
    const { page, errors } = await session.signIn(session.fx.tokens.admin)
    await page.getByRole('link', { name: 'Usage' }).click()
    await page.getByRole('heading', { name: 'Usage', level: 1 }).waitFor()
    const byToken = page.getByRole('table', { name: 'Usage by token' })
    await byToken.getByRole('row').filter({ hasText: 'kitchen tablet' }).waitFor()

    const bars = await page.locator('g.usage-day').evaluateAll((gs) =>
      gs.map((g) => ({
        day: g.getAttribute('data-day'),
        tokens: Number(g.getAttribute('data-tokens')),
        height: [...g.querySelectorAll('rect')].reduce((h, r) => h + Number(r.getAttribute('height')), 0),
      })),
    )
    expect(bars).toHaveLength(30)
    expect([dayBefore, utcDay()]).toContain(bars.at(-1)?.day)
    const since = bars[0]!.day!
    const days = await usage(`group_by=day&since=${since}`)
    for (const bar of bars) {
      const row = days.rows.find((r) => r.day === bar.day)
      expect(bar.tokens, bar.day ?? '').toBe(row ? Number(row.total_tokens) : 0)
    }
    const max = Math.max(...bars.map((b) => b.tokens))
    expect(max).toBeGreaterThan(0)
    for (const bar of bars) expect(bar.height).toBeCloseTo((bar.tokens / max) * 180, 3)
    await page
      .getByRole('img', {
        name: `Tokens per day: ${Number(days.totals.total_tokens).toLocaleString('en')} in 30 days`,
      })
      .waitFor()

    const tokens = await usage(`group_by=token&since=${since}`)
    const mine = tokens.rows.find((r) => r.label === 'kitchen tablet')!
    expect(mine.requests).toBe(3)
    const cells = await byToken
      .getByRole('row')
      .filter({ hasText: 'kitchen tablet' })
      .getByRole('cell')
      .allTextContents()
    expect(cells).toEqual([
      String(mine.token),
      String(mine.requests),
      Number(mine.prompt_tokens).toLocaleString('en'),
      Number(mine.completion_tokens).toLocaleString('en'),
      Number(mine.total_tokens).toLocaleString('en'),
    ])
    const slots = await usage(`group_by=slot&since=${since}`)
    const primary = slots.rows.find((r) => r.slot === 'primary')!
    const slotCells = await page
      .getByRole('table', { name: 'Usage by slot' })
      .getByRole('row', { name: /^primary/ })
      .getByRole('cell')
      .allTextContents()
    expect(slotCells.slice(0, 3)).toEqual([
      Number(primary.requests).toLocaleString('en'),
      Number(primary.prompt_tokens).toLocaleString('en'),
      Number(primary.completion_tokens).toLocaleString('en'),
    ])
    const shot = join(tmpdir(), 'svc-dashboard-usage-1280.png')
    await page.screenshot({ path: shot, fullPage: true })
    console.log(`[usage e2e] screenshot: ${shot}`)
    expect(errors).toEqual([])
  }, 60_000)

  it('fits a phone without sideways scrolling', async () => {
    const { page, errors } = await session.signIn(session.fx.tokens.admin, 390)
    await page.goto(`${session.fx.api.url}/usage`)
    await page.getByRole('table', { name: 'Usage by token' }).getByRole('row').nth(1).waitFor()
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth)
    expect(overflow).toBeLessThanOrEqual(0)
    expect(errors).toEqual([])
  }, 60_000)

  it('sets a token\u2019s limits in Settings, and the API enforces them', async () => {
    const { page, errors } = await session.signIn(session.fx.tokens.admin)
    await page.getByRole('link', { name: 'Settings' }).click()
    const row = page.getByRole('row').filter({ hasText: 'kitchen tablet' })
    await row.getByRole('button', { name: 'Limits of kitchen tablet' }).click()
    const dialog = page.getByRole('dialog', { name: 'Limits of kitchen tablet' })
    await dialog.getByLabel('Requests per minute').fill('1')
    await dialog.getByRole('button', { name: 'Save limits' }).click()
    await dialog.waitFor({ state: 'detached' })
    await row.getByText('1 rpm').waitFor()
    const chat = { model: 'primary', messages: [{ role: 'user', content: 'hi' }], max_tokens: 1 }
    const first = await session.fx.call('/v1/chat/completions', { method: 'POST', json: chat, token })
    expect(first.headers.get('x-ratelimit-limit-requests')).toBe('1')
    const second = await session.fx.call('/v1/chat/completions', { method: 'POST', json: chat, token })
    expect(second.status).toBe(429)

    // A new token with a daily quota, from the create form.
    await page.getByLabel('Label').fill('limited')
    await page.getByLabel('Tokens per day').first().fill('5000')
    await page.getByRole('button', { name: 'Create token' }).click()
    await page
      .getByRole('dialog', { name: 'Token "limited" created' })
      .getByRole('button', { name: 'Close' })
      .click()
    await page.getByRole('row').filter({ hasText: 'limited' }).getByText('5,000 tpd').waitFor()
    expect(errors).toEqual([])
  }, 60_000)
})

/** Today's date in UTC, as the page and the API write days (`2026-11-27`). */
function utcDay(): string {
  return new Date().toISOString().slice(0, 10)
}
