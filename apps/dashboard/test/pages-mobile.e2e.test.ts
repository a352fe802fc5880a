/**
 * The Models, Settings and Usage pages at 1280×800 and 390×844 (issue 39, points 2 and 6), in
 * Chromium against the real API: nothing scrolls sideways, a model id wraps only after `/`, `-`, `:`
 * or `_`, Pull and Revoke are on screen, the usage chart's axis words are readable, and the Models
 * page lists only what is offered here until "Show all"; the initial JavaScript stays at or under
 * 120 KB gzipped.
 */
import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { gzipSync } from 'node:zlib'
import { saveScreenshot, VIEWPORTS } from '@svc/testing'
import { formatBytes } from '@svc/ui'
import type { Locator, Page } from 'playwright-core'
import { beforeAll, describe, expect, it } from 'vitest'
import { useDashboard } from './dashboard-session'
import { partsPresent } from './fixture'

const SUITE = 'pages'

/** Whether an element lies wholly inside the page's viewport. */
async function onScreen(page: Page, target: Locator, what: string) {
  const width = page.viewportSize()!.width
  await target.scrollIntoViewIfNeeded()
  const box = await target.boundingBox()
  expect(box, `${what} has no box`).not.toBeNull()
  expect(box!.x, `${what} starts left of the screen`).toBeGreaterThanOrEqual(0)
  expect(box!.x + box!.width, `${what} ends right of the screen (${width} px)`).toBeLessThanOrEqual(width)
  expect(await target.isVisible()).toBe(true)
}

/** Neither the page nor the box around `table` scrolls sideways. */
async function noSidewaysScroll(page: Page, table: Locator) {
  const page_ = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth)
  expect(page_, 'the page scrolls sideways').toBeLessThanOrEqual(0)
  const box = await table.evaluate((el) => {
    const wrap = el.parentElement!
    return wrap.scrollWidth - wrap.clientWidth
  })
  expect(box, 'the table scrolls sideways inside its box').toBeLessThanOrEqual(0)
}

/**
 * Where the text of `el` breaks onto a new line: the character before each break. A break inside a
 * word has a letter or digit there.
 */
function breaksOf(el: Locator): Promise<string[]> {
  return el.evaluate((node) => {
    const chars: { ch: string; top: number }[] = []
    const walker = document.createTreeWalker(node, NodeFilter.SHOW_TEXT)
    for (let t = walker.nextNode(); t; t = walker.nextNode()) {
      const text = t.textContent ?? ''
      for (let i = 0; i < text.length; i++) {
        const range = document.createRange()
        range.setStart(t, i)
        range.setEnd(t, i + 1)
        const rect = range.getBoundingClientRect()
        if (rect.width > 0) chars.push({ ch: text[i]!, top: Math.round(rect.top) })
      }
    }
    const out: string[] = []
    for (let i = 1; i < chars.length; i++)
      if (chars[i]!.top > chars[i - 1]!.top + 2) out.push(`${chars[i - 1]!.ch}|${chars[i]!.ch}`)
    return out
  })
}

describe.skipIf(!partsPresent())('the Models, Settings and Usage pages at both widths', () => {
  const session = useDashboard()
  beforeAll(async () => {
    // Some use, so the chart has a bar, and a token with a long label in the tokens table.
    await session.fx.load('primary', 'tiny-chat')
    const chat = { model: 'primary', messages: [{ role: 'user', content: 'hello' }], max_tokens: 4 }
    expect((await session.fx.call('/v1/chat/completions', { method: 'POST', json: chat })).status).toBe(200)
    const made = await session.fx.call('/api/auth/tokens', {
      method: 'POST',
      json: { label: 'kitchen tablet in the hallway', scope: 'v1-only' },
    })
    expect(made.status).toBe(201)
  }, 120_000)

  const open = async (viewport: (typeof VIEWPORTS)[keyof typeof VIEWPORTS], path: string) => {
    const w = await session.signIn(session.fx.tokens.admin, viewport.width)
    await w.page.setViewportSize(viewport)
    await w.page.goto(session.fx.api.url + path)
    return w
  }

  for (const [name, viewport] of Object.entries(VIEWPORTS)) {
    it(`${name}: Models lists what runs here, fits the screen, wraps ids between words, keeps Pull on screen`, async () => {
      const { page, errors } = await open(viewport, '/models')
      await page.getByRole('heading', { name: 'Models', level: 1 }).waitFor()
      const table = page.getByRole('table', { name: 'Models this machine can run' })
      const extra = table.getByRole('row').filter({ hasText: 'tiny-extra' })
      await extra.waitFor()
      await noSidewaysScroll(page, table)
      await onScreen(page, extra.getByRole('button', { name: 'Pull tiny-extra' }), 'Pull')

      // Only offered models (and what is on disk or held) until Show all.
      const all = (await (await session.fx.call('/api/models')).json()) as {
        models: { id: string; offered: boolean; size: number | null; present: boolean; slot: string | null }[]
      }
      const hidden = all.models.filter((m) => !m.offered && !m.present && m.slot === null)
      expect(hidden.length).toBeGreaterThan(0)
      const headers = await table.getByRole('rowheader').allTextContents()
      for (const m of hidden) expect(headers.some((h) => h.startsWith(m.id))).toBe(false)
      // Size is the API's `size` (all the model's files), nothing added.
      const tiny = all.models.find((m) => m.id === 'tiny-extra')!
      const sizeText = await extra.getByRole('cell').nth(2).textContent()
      expect(sizeText).toBe(formatBytes(tiny.size!))

      // Ids wrap only after a separator: checked on every id the list shows.
      for (const header of await table.getByRole('rowheader').all()) {
        for (const cut of await breaksOf(header.locator('span').first()))
          expect(cut, `an id broken inside a word at ${name}`).toMatch(/^[/:_-]\|/)
      }
      // The longest id shown, squeezed into a column narrower than it: it wraps, only after a separator.
      const longest = all.models
        .map((m) => m.id)
        .filter((id) => headers.some((h) => h.startsWith(id)))
        .reduce((a, b) => (b.length > a.length ? b : a), '')
      const squeezed = table.getByRole('row').filter({ hasText: longest }).getByRole('rowheader')
      await squeezed.evaluate((th) => {
        ;(th as HTMLElement).style.maxWidth = '7rem'
        ;(th as HTMLElement).style.display = 'block'
      })
      const cuts = await breaksOf(squeezed.locator('span').first())
      expect(cuts.length, `${longest} did not wrap in 7rem`).toBeGreaterThan(0)
      for (const cut of cuts) expect(cut, 'an id broken inside a word').toMatch(/^[/:_-]\|/)
      await page.reload()
      await extra.waitFor()
      await saveScreenshot(page, SUITE, 'models-offered')

      await page.getByLabel(/^Show all/).check()
      const shown = page.getByRole('table', { name: 'Catalogued, pulled and local models' })
      await shown.getByRole('row').filter({ hasText: hidden[0]!.id }).waitFor()
      await noSidewaysScroll(page, shown)
      for (const header of await shown.getByRole('rowheader').all()) {
        for (const cut of await breaksOf(header.locator('span').first()))
          expect(cut, `an id broken inside a word at ${name}`).toMatch(/^[/:_-]\|/)
      }
      await saveScreenshot(page, SUITE, 'models-show-all')
      expect(errors).toEqual([])
    }, 90_000)

    it(`${name}: the tokens table keeps Revoke on screen`, async () => {
      const { page, errors } = await open(viewport, '/settings')
      const table = page.getByRole('table', { name: 'Tokens' })
      const row = table.getByRole('row').filter({ hasText: 'kitchen tablet in the hallway' })
      await row.waitFor()
      await noSidewaysScroll(page, table)
      await onScreen(
        page,
        row.getByRole('button', { name: 'Revoke kitchen tablet in the hallway' }),
        'Revoke',
      )
      await onScreen(
        page,
        row.getByRole('button', { name: 'Limits of kitchen tablet in the hallway' }),
        'Limits',
      )
      // The hardware's backends table fits too (cards on a phone).
      const backends = page.getByRole('table', { name: 'Backends per provider on this machine' })
      await backends.getByRole('row').nth(1).waitFor()
      await noSidewaysScroll(page, backends)
      await saveScreenshot(page, SUITE, 'settings-tokens')
      expect(errors).toEqual([])
    }, 60_000)

    it(`${name}: the usage chart's axis words are at least 10 px`, async () => {
      const { page, errors } = await open(viewport, '/usage')
      await page.getByRole('img', { name: /^Tokens per day: [1-9]/ }).waitFor()
      const words = [
        page.getByText(/^[\d,]+( tokens)?$/).first(), // the top of the scale
        ...(await page
          .getByText(/^\d\d-\d\d$/)
          .filter({ visible: true })
          .all()), // the dates shown
      ]
      expect(words.length).toBeGreaterThan(2)
      for (const word of words) {
        const text = await word.textContent()
        const size = await word.evaluate((el) => Number.parseFloat(getComputedStyle(el).fontSize))
        const box = await word.boundingBox()
        expect(size, `"${text}" font-size`).toBeGreaterThanOrEqual(10)
        expect(box!.height, `"${text}" is drawn ${box!.height.toFixed(1)} px tall`).toBeGreaterThanOrEqual(10)
        await onScreen(page, word, `"${text}"`)
      }
      // No two axis words run into each other.
      const boxes = (await Promise.all(words.map((w) => w.boundingBox()))).map((b) => b!)
      for (let i = 0; i < boxes.length; i++)
        for (let j = i + 1; j < boxes.length; j++) {
          const [a, b] = [boxes[i]!, boxes[j]!]
          const apart =
            a.x + a.width <= b.x || b.x + b.width <= a.x || a.y + a.height <= b.y || b.y + b.height <= a.y
          expect(apart, `axis words ${i} and ${j} overlap`).toBe(true)
        }
      const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth)
      expect(overflow).toBeLessThanOrEqual(0)
      await saveScreenshot(page, SUITE, 'usage-chart')
      expect(errors).toEqual([])
    }, 60_000)
  }

  // What a phone downloads before the first page shows.
  it('keeps the initial JavaScript at or under 120 KB gzipped', async () => {
    const html = await readFile(join(session.fx.dist, 'index.html'), 'utf8')
    const scripts = [...html.matchAll(/(?:src|href)="(\/assets\/[^"]+\.js)"/g)].map((m) => m[1]!)
    expect(scripts.length).toBeGreaterThan(0)
    let total = 0
    for (const s of scripts) total += gzipSync(await readFile(join(session.fx.dist, s)), { level: 9 }).length
    console.log(`[dashboard e2e] initial JS: ${(total / 1024).toFixed(1)} KB gzipped (${scripts.join(', ')})`)
    expect(total).toBeLessThanOrEqual(120 * 1024)
  })
})
