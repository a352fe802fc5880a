/**
 * The Slots page and the dashboard's frame in Chromium at 1280×800 and 390×844 (issue 39, points 1,
 * 2, 5 and 6), against the real API with real llama-server: offline cards compact, a loaded card's
 * model, memory, context size and sparklines, a slot that cannot run here saying why instead of
 * offering Load, the last error with its fix and gone after an unload, the settings dialog lined up,
 * and the nav on one row on a phone. Positions and visibility, not pixels; screenshots `slots-*`.
 */
import { saveScreenshot, VIEWPORTS } from '@svc/testing'
import type { Locator } from 'playwright-core'
import { describe, expect, it } from 'vitest'
import { card } from './browser'
import { useDashboard } from './dashboard-session'
import { partsPresent } from './fixture'

const SUITE = 'slots'
const WIDTHS = [VIEWPORTS.desktop, VIEWPORTS.phone] as const

interface ApiSlot {
  name: string
  state: string
  lastError: string | null
  runnable?: {
    ok: boolean
    reason: string | null
    backends: { backend: string; ok: boolean; reason: string | null }[]
  }
}

/** Whether the element's centre is the element itself (or inside it), not something drawn over it. */
async function uncovered(target: Locator): Promise<boolean> {
  return target.evaluate((el) => {
    const r = el.getBoundingClientRect()
    const hit = document.elementFromPoint(r.x + r.width / 2, r.y + r.height / 2)
    return hit !== null && (hit === el || el.contains(hit))
  })
}

interface Watched {
  covered: string[]
}

/**
 * Watches `el`'s buttons in the page until it goes: at the frame after every change to the page's
 * DOM (a toast coming, a card growing) and every 100 ms between, a visible button (centre on
 * screen) with something else at its centre is noted in `window.covered`, with what lies over it.
 * So the moments the test did not happen to look at count too, without checking every frame (which
 * would load a busy box).
 */
function watchCovers(el: Element): void {
  const covered: string[] = []
  ;(window as unknown as Watched).covered = covered
  const check = () => {
    for (const button of el.querySelectorAll('button')) {
      const r = button.getBoundingClientRect()
      const [x, y] = [r.x + r.width / 2, r.y + r.height / 2]
      if (r.width === 0 || x < 0 || y < 0 || x > innerWidth || y > innerHeight) continue
      const hit = document.elementFromPoint(x, y)
      if (hit && hit !== button && !button.contains(hit))
        covered.push(`${button.textContent} under ${hit.outerHTML.slice(0, 120)}`)
    }
  }
  const changes = { subtree: true, childList: true, attributes: true, characterData: true }
  new MutationObserver(() => requestAnimationFrame(check)).observe(document.body, changes)
  setInterval(check, 100)
  check()
}

describe.skipIf(!partsPresent())('the Slots page in a real browser', () => {
  const session = useDashboard()
  const slotOf = async (name: string) =>
    (await (await session.fx.call(`/api/slots/${name}`)).json()) as ApiSlot
  const open = async (viewport: (typeof WIDTHS)[number]) => {
    const w = await session.signIn(session.fx.tokens.admin, viewport.width)
    await w.page.setViewportSize(viewport)
    return w
  }

  it('shows offline slots as compact cards: name, state, where it runs and one action, no rows of zeros', async () => {
    for (const viewport of WIDTHS) {
      const { page, errors } = await open(viewport)
      const embed = card(page, 'embed')
      await embed.getByText('Offline').waitFor()
      expect(await embed.locator('.metrics').count()).toBe(0)
      const figures = await embed.locator('dd').allTextContents()
      expect(figures.filter((f) => f.trim() === '0' || f.trim() === '—')).toEqual([])
      const box = (await embed.boundingBox())!
      expect(box.height, `embed card at ${viewport.width}px`).toBeLessThan(170)
      expect(await embed.getByText('llama.cpp', { exact: false }).count()).toBe(1)
      expect(await embed.getByText(/ · (process|container|auto)$/).count()).toBe(0)
      expect(await embed.getByRole('button', { name: 'Load…' }).isVisible()).toBe(true)
      await saveScreenshot(page, SUITE, 'slots-offline')
      expect(errors).toEqual([])
    }
  }, 90_000)

  it('at 390 px keeps the nav on one row, the page from scrolling sideways, one card per row and buttons 40 px tall', async () => {
    const { page, errors } = await open(VIEWPORTS.phone)
    await card(page, 'primary').waitFor()
    const nav = page.getByRole('navigation', { name: 'Main' })
    const navBox = (await nav.locator('ul').boundingBox())!
    const link = (await nav.getByRole('link', { name: 'Slots' }).boundingBox())!
    expect(navBox.height, 'nav height vs one link').toBeLessThan(link.height * 1.5)
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390)
    // every nav entry is one scroll away, never on a second row
    const tops = await nav
      .getByRole('link')
      .evaluateAll((as) => [...new Set(as.map((a) => Math.round(a.getBoundingClientRect().top)))])
    expect(tops).toHaveLength(1)
    const lefts = await page
      .locator('.cards > article')
      .evaluateAll((cs) => [...new Set(cs.map((c) => Math.round(c.getBoundingClientRect().left)))])
    expect(lefts).toHaveLength(1)
    for (const button of await page.locator('.slot-card button').all()) {
      if (!(await button.isVisible())) continue
      const b = (await button.boundingBox())!
      expect(b.height, (await button.textContent()) ?? '').toBeGreaterThanOrEqual(40)
    }
    await saveScreenshot(page, SUITE, 'slots-phone-nav')
    expect(errors).toEqual([])
  }, 60_000)

  it('lines up the settings dialog, shows the URL only for the remote runtime, and opens from /?settings=<slot>', async () => {
    for (const viewport of WIDTHS) {
      const { page, errors } = await open(viewport)
      await page.goto(`${session.fx.api.url}/?settings=primary`)
      const dialog = page.getByRole('dialog', { name: 'Settings of primary' })
      await dialog.waitFor()
      const xs = await dialog
        .locator('input:not([type="checkbox"]), select, textarea')
        .evaluateAll((els) => [...new Set(els.map((e) => Math.round(e.getBoundingClientRect().left)))])
      expect(xs, `control x at ${viewport.width}px`).toHaveLength(1)
      expect(await dialog.getByLabel('URL (remote runtime)').count()).toBe(0)
      expect(await dialog.getByLabel('Context size').isVisible()).toBe(true)
      await saveScreenshot(page, SUITE, 'slots-settings')
      await dialog.getByLabel('Runtime', { exact: true }).selectOption('remote')
      await dialog.getByLabel('URL (remote runtime)').waitFor()
      await dialog.getByRole('button', { name: 'Cancel' }).click()
      await dialog.waitFor({ state: 'detached' })
      expect(new URL(page.url()).search).toBe('')
      expect(errors).toEqual([])
    }
  }, 60_000)

  it('offers only backends that run here; a slot that cannot run says why instead of Load', async () => {
    const img = await slotOf('img')
    expect(img.runnable, 'GET /api/slots/img gives runnable').toBeDefined()
    // This box has no ROCm GPU: the picker's verdict says so, and no face offers it.
    expect(img.runnable!.backends.find((b) => b.backend === 'rocm')?.ok).toBe(false)
    for (const viewport of WIDTHS) {
      const { page, errors } = await open(viewport)
      const imgCard = card(page, 'img')
      await imgCard.getByText('Offline').waitFor()
      expect(await imgCard.getByRole('button', { name: /rocm/i }).count()).toBe(0)
      if (img.runnable!.ok) {
        await imgCard.getByRole('button', { name: 'Load…' }).click()
        const picker = page.getByRole('dialog', { name: 'Load a model into img' })
        await picker.waitFor()
        const offered = await picker.locator('select option').allTextContents()
        expect(offered.map((o) => o.toLowerCase())).not.toContain('rocm')
        await picker.getByRole('button', { name: 'Cancel' }).click()
      } else {
        expect(await imgCard.getByRole('button', { name: 'Load…' }).count()).toBe(0)
        await imgCard.getByText('Cannot run here:').waitFor()
        expect(await imgCard.getByRole('button', { name: 'Change the settings…' }).isVisible()).toBe(true)
        // Each backend's own reason, one click away (rocm's says what is missing).
        await imgCard.getByText('Why', { exact: true }).click()
        const rocm = img.runnable!.backends.find((b) => b.backend === 'rocm')!
        expect(await imgCard.getByRole('listitem').filter({ hasText: 'rocm' }).textContent()).toBe(
          `rocm: ${rocm.reason}`,
        )
        await saveScreenshot(page, SUITE, 'slots-img-cannot-run-why')
        // Compact still: the reasons fold away, the card stays short.
        await imgCard.getByText('Why', { exact: true }).click()
        expect((await imgCard.boundingBox())!.height).toBeLessThan(viewport.width < 600 ? 260 : 200)
      }
      // Nothing offers a load on rocm: no control names it.
      expect(await imgCard.getByRole('option', { name: /rocm/i }).count()).toBe(0)
      await saveScreenshot(page, SUITE, 'slots-img-cannot-run')
      expect(errors).toEqual([])
    }
  }, 60_000)

  it('shows a failed load as the last error with its fix, in words and no command; Clear unloads and it stays gone', async () => {
    const { page, errors } = await open(VIEWPORTS.desktop)
    const embed = card(page, 'embed')
    await embed.getByText('Offline').waitFor()
    // A URL nothing answers at: the pull fails in the background and the slot keeps the error.
    const r = await session.fx.call('/api/slots/embed/load', {
      method: 'POST',
      json: { model: 'http://127.0.0.1:9/nowhere.gguf' },
    })
    expect(r.status).toBeLessThan(300)
    await expect.poll(async () => (await slotOf('embed')).lastError, { timeout: 30_000 }).not.toBeNull()
    const alert = embed.getByRole('alert')
    await alert.waitFor()
    expect(await alert.textContent()).toMatch(/^Last error:/)
    expect(await alert.textContent()).not.toMatch(/\bsvc [a-z]/)
    expect(await embed.getByRole('button', { name: 'Load again…' }).isVisible()).toBe(true)
    await saveScreenshot(page, SUITE, 'slots-last-error')
    await alert.getByRole('button', { name: 'Clear' }).click()
    await alert.waitFor({ state: 'detached' })
    // The API cleared it too: a fresh page does not bring it back.
    await expect.poll(async () => (await slotOf('embed')).lastError, { timeout: 10_000 }).toBeNull()
    await page.reload()
    await card(page, 'embed').getByText('Offline').waitFor()
    expect(await card(page, 'embed').getByRole('alert').count()).toBe(0)
    // The browser logs nothing but the failed pull it was told about (none: the API pulled, not the page).
    expect(errors).toEqual([])
  }, 60_000)

  it('loads from the card with no toast over its buttons, then shows model, memory, context size and sparklines that move with requests', async () => {
    const { page, errors } = await open(VIEWPORTS.desktop)
    const primary = card(page, 'primary')
    // The pull waits at the gate until the loading card has been looked at: the checks below see
    // a load in progress however fast or slow the box is.
    const release = session.fx.gate.hold()
    try {
      await primary.getByRole('button', { name: 'Load…' }).click()
      const picker = page.getByRole('dialog', { name: 'Load a model into primary' })
      await picker.getByRole('radio', { name: /tiny-chat/ }).check()
      await picker.getByRole('button', { name: 'Load', exact: true }).click()
      await picker.waitFor({ state: 'detached' })
      const loading = primary.locator('header').getByText('Pulling')
      await loading.waitFor({ timeout: 30_000 })
      // From here to ready, every frame: nothing lies over the card's buttons (no "Loading…" toast).
      await primary.evaluate(watchCovers)
      for (const button of await primary.getByRole('button').all()) {
        if (await button.isVisible())
          expect(await uncovered(button), (await button.textContent()) ?? '').toBe(true)
      }
      expect(await loading.isVisible(), 'the checks above saw the card while it loads').toBe(true)
    } finally {
      release()
    }
    await primary
      .getByText('Ready')
      .waitFor({ timeout: 150_000 })
      .catch(async (e: Error) => {
        throw new Error(`${e.message}\nprimary: ${JSON.stringify(await slotOf('primary'))}`)
      })
    expect(await page.evaluate(() => (window as unknown as Watched).covered)).toEqual([])
    expect(await page.locator('.svc-toast').count()).toBe(0)

    const fact = (term: string) => primary.locator('.facts div', { hasText: term }).locator('dd')
    expect(await fact('Model').textContent()).toBe('tiny-chat')
    await expect
      .poll(() => fact('Memory').textContent(), { timeout: 10_000 })
      .toMatch(/^[\d.]+ [KMG]?B in RAM/)
    expect(await fact('Context').textContent()).toBe('8,192 tokens')
    const requests = primary.getByRole('img', { name: /^Requests per 5 s/ })
    const speed = primary.getByRole('img', { name: /^Tokens per second/ })
    await requests.waitFor()
    await speed.waitFor()
    const before = [await requests.getAttribute('aria-label'), await speed.getAttribute('aria-label')]
    for (const max_tokens of [8, 8, 8]) {
      const chat = { model: 'primary', messages: [{ role: 'user', content: 'hi' }], max_tokens }
      const res = await session.fx.call('/v1/chat/completions', { method: 'POST', json: chat })
      expect(res.status).toBe(200)
      await res.arrayBuffer()
    }
    await expect.poll(() => requests.getAttribute('aria-label'), { timeout: 15_000 }).not.toBe(before[0])
    await expect.poll(() => speed.getAttribute('aria-label'), { timeout: 15_000 }).not.toBe(before[1])
    // both draw bars now: the requests just sent, and their speed
    expect(await requests.locator('rect').count()).toBeGreaterThan(0)
    expect(await speed.locator('rect').count()).toBeGreaterThan(0)
    // An offline card beside the loaded one keeps its own, compact height.
    expect((await card(page, 'embed').boundingBox())!.height).toBeLessThan(170)
    for (const viewport of WIDTHS) {
      await page.setViewportSize(viewport)
      expect(await requests.isVisible()).toBe(true)
      expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(
        viewport.width,
      )
      await saveScreenshot(page, SUITE, 'slots-loaded')
    }
    expect(errors).toEqual([])
  }, 240_000)

  it('closes only its own picker when a load is answered late: a dialog opened meanwhile stays', async () => {
    const { page, errors } = await open(VIEWPORTS.desktop)
    const embed = card(page, 'embed')
    // The load's answer is held in the browser (a slow network), then passed on to the real API.
    let pass!: () => void
    const held = new Promise<void>((resolve) => {
      pass = resolve
    })
    await page.route('**/api/slots/embed/load', async (route) => {
      await held
      await route.continue()
    })
    await embed.getByRole('button', { name: /^Load/ }).click()
    const picker = page.getByRole('dialog', { name: 'Load a model into embed' })
    // A URL nothing answers at: accepted at once, then the pull fails in the background.
    await picker.getByLabel('Or a file path or URL on the server').fill('http://127.0.0.1:9/late.gguf')
    const answered = page.waitForResponse('**/api/slots/embed/load')
    await picker.getByRole('button', { name: 'Load', exact: true }).click()
    await picker.getByRole('button', { name: 'Cancel' }).click()
    await picker.waitFor({ state: 'detached' })
    await embed.getByRole('button', { name: 'Settings' }).click()
    const settings = page.getByRole('dialog', { name: 'Settings of embed' })
    await settings.waitFor()
    pass()
    expect((await answered).status()).toBeLessThan(300)
    // The page has handled the answer by the time it runs a timer after it.
    await page.evaluate(() => new Promise((resolve) => setTimeout(resolve, 200)))
    expect(await settings.isVisible()).toBe(true)
    await settings.getByRole('button', { name: 'Cancel' }).click()
    await session.fx.call('/api/slots/embed/unload?wait=true', { method: 'POST' })
    expect(errors).toEqual([])
  }, 60_000)
})
