/**
 * The Models page's model library end to end, in Chromium at 1280×800 and 390×844: the real API
 * (auth on) with the Hugging Face Hub stand-in behind HF_ENDPOINT and real llama-server. A person
 * searches the Hub, picks a repo, sees its quants with whether each fits, pulls one (a progress bar
 * while the throttled CDN sends it; Cancel stops a pull), loads it into primary, chats with it by its
 * Hub name, cannot delete it while primary holds it, and deletes it once unloaded. Screenshots go to
 * `SVC_TEST_ARTIFACTS` (else `<tmp>/svc-screenshots/`); their paths are printed.
 */
import { mkdir, mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createTokenStore } from '@svc/auth'
import {
  type ApiProcess,
  chromiumAvailable,
  type HubStandIn,
  launchChromium,
  requireLlamaServer,
  startApi,
  startHubStandIn,
  type TestBrowser,
  testEnv,
  tinyChatQuants,
  writeSvcConfig,
} from '@svc/testing'
import type { Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { buildDashboard, expectStatus } from './fixture'

const REPO = 'tiny/Tiny-Chat-GGUF'
const Q4 = `hf.co/${REPO}:Q4_K_M`
const BIG = `hf.co/${REPO}:F32`
/** The pull should take a few seconds: long enough to see its bar, short for the suite. */
const PULL_SECONDS = 3
const FAST_HASH = { memoryCost: 256, timeCost: 1, parallelism: 1 }

// The parts this suite drives (a missing one fails in CI and skips loudly elsewhere).
const parts = [chromiumAvailable(), Boolean(requireLlamaServer())].every(Boolean)

describe.skipIf(!parts)('the Models page library against the Hub stand-in', () => {
  let dir: string
  let hub: HubStandIn
  let api: ApiProcess
  let chrome: TestBrowser
  let admin: string
  let shots: string
  let weights: Buffer

  const call = (path: string, init: RequestInit & { json?: unknown } = {}) => {
    const { json, ...rest } = init
    return fetch(api.url + path, {
      signal: AbortSignal.timeout(60_000),
      ...rest,
      headers: {
        authorization: `Bearer ${admin}`,
        ...(json !== undefined ? { 'content-type': 'application/json' } : {}),
      },
      ...(json !== undefined ? { body: JSON.stringify(json) } : {}),
    })
  }
  const slotState = async () => ((await (await call('/api/slots/primary')).json()) as { state: string }).state

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'svc-models-hub-e2e-'))
    const dist = join(dir, 'dist')
    await buildDashboard(dist)
    // The model's own budget: Q4 fits, F32 (about 20 times larger) does not.
    const quants = tinyChatQuants({ contextLength: 1024 })
    weights = quants.q4
    hub = await startHubStandIn({
      repos: [
        {
          id: REPO,
          downloads: 4_200,
          likes: 12,
          files: { 'README.md': Buffer.from('# tiny\n'), ...quants.files },
        },
        { id: 'tiny/Tiny-Other-GGUF', downloads: 10, files: { 'o-Q8_0.gguf': weights } },
      ],
    })
    const budgetGb = quants.budgetGb.toFixed(6)
    const configDir = await writeSvcConfig(join(dir, 'config'), {
      slots: { primary: 'args = ["-c", "256", "-np", "1", "--threads", "1"]\nrestart = "no"\n' },
    })
    const store = createTokenStore({ configDir, watch: false, flushIntervalMs: 0, hashParams: FAST_HASH })
    admin = (await store.create({ label: 'e2e-admin', scope: 'admin' })).token
    await store.close()
    api = await startApi({
      configDir,
      stateDir: join(dir, 'state'),
      env: {
        SVC_AUTH_ENABLED: '1',
        SVC_DASHBOARD_DIR: dist,
        HF_ENDPOINT: hub.url,
        SVC_MEMORY_BUDGET_GB: `ram=${budgetGb}`,
      },
    })
    chrome = await launchChromium()
    shots = testEnv.inherited().SVC_TEST_ARTIFACTS || join(tmpdir(), 'svc-screenshots')
    await mkdir(shots, { recursive: true })
    console.log(`\n[models-hub e2e] screenshots: ${shots}\n`)
  }, 240_000)

  afterAll(async () => {
    await chrome?.[Symbol.asyncDispose]()
    await api?.[Symbol.asyncDispose]()
    await hub?.[Symbol.asyncDispose]()
    await rm(dir, { recursive: true, force: true })
  })

  async function openModels(width: number, height: number): Promise<{ page: Page; errors: string[] }> {
    const context = await chrome.browser.newContext({ viewport: { width, height } })
    const page = await context.newPage()
    const errors: string[] = []
    page.on('pageerror', (e) => errors.push(`page: ${e.message}`))
    await page.goto(api.url)
    await page.getByLabel('API token').fill(admin)
    await page.getByLabel('API token').press('Enter')
    await page.getByRole('heading', { name: 'Slots', level: 1 }).waitFor()
    await page.getByRole('link', { name: 'Models' }).click()
    await page.getByRole('heading', { name: 'Models', level: 1 }).waitFor()
    return { page, errors }
  }

  /** Fails when the page scrolls sideways or `what` is not wholly inside the viewport's width. */
  async function expectWithinWidth(
    page: Page,
    width: number,
    what: Record<string, ReturnType<Page['getByRole']>>,
  ) {
    const scroll = await page.evaluate(() => document.documentElement.scrollWidth)
    expect(scroll, 'the page scrolls sideways').toBeLessThanOrEqual(width)
    for (const [name, locator] of Object.entries(what)) {
      await locator.scrollIntoViewIfNeeded()
      expect(await locator.isVisible(), `${name} is visible`).toBe(true)
      const box = await locator.boundingBox()
      expect(box, name).not.toBeNull()
      expect(box!.x, `${name} starts inside the viewport`).toBeGreaterThanOrEqual(0)
      expect(box!.x + box!.width, `${name} ends inside the viewport`).toBeLessThanOrEqual(width + 0.5)
    }
  }

  for (const [width, height] of [
    [1280, 800],
    [390, 844],
  ] as const) {
    it(`searches, pulls with progress, loads, chats and deletes at ${width}×${height}`, async () => {
      const { page, errors } = await openModels(width, height)
      await page.getByText(/^Disk: /).waitFor()

      await page.getByLabel('Find models on the Hugging Face Hub').fill('tiny')
      const results = page.getByRole('list', { name: 'Hub search results' })
      // Most downloaded first.
      await expect
        .poll(() => results.getByRole('button').allInnerTexts(), { timeout: 10_000 })
        .toEqual([expect.stringContaining(REPO), expect.stringContaining('tiny/Tiny-Other-GGUF')])
      await results.getByRole('button', { name: new RegExp(REPO) }).click()

      const quants = page.getByRole('list', { name: `Quants of ${REPO}` })
      const q4 = quants.getByRole('listitem', { name: Q4 })
      const f32 = quants.getByRole('listitem', { name: BIG })
      await q4.getByText('Fits', { exact: true }).waitFor()
      await f32.getByText('Does not fit', { exact: true }).waitFor()
      await f32.getByText(/^More than system memory's budget of /).waitFor()
      await page.getByText(/llama · 2 layers · context 1,024/).waitFor()
      await expectWithinWidth(page, width, {
        'the search box': page.getByLabel('Find models on the Hugging Face Hub'),
        'the Q4 Pull button': q4.getByRole('button', { name: `Pull ${Q4}` }),
      })
      await page.screenshot({ path: join(shots, `models-hub-quants-${width}.png`), fullPage: true })

      // Slow enough that the bar is on screen for a few seconds.
      hub.throttle(REPO, 'Tiny-Chat-Q4_K_M.gguf', Math.ceil(weights.length / PULL_SECONDS))
      try {
        if (width === 1280) {
          // Cancel stops a pull: the bar goes, Pull comes back (the partial file stays for a resume).
          await q4.getByRole('button', { name: `Pull ${Q4}` }).click()
          await q4.getByRole('progressbar', { name: `Pulling ${Q4}` }).waitFor({ timeout: 10_000 })
          await q4.getByRole('button', { name: `Cancel the pull of ${Q4}` }).click()
          await q4.getByRole('button', { name: `Pull ${Q4}` }).waitFor({ timeout: 10_000 })
          expect(await q4.getByRole('progressbar').count()).toBe(0)
        }
        await q4.getByRole('button', { name: `Pull ${Q4}` }).click()
        const bar = q4.getByRole('progressbar', { name: `Pulling ${Q4}` })
        await bar.waitFor({ timeout: 10_000 })
        await expectWithinWidth(page, width, {
          'the progress bar': bar,
          'the Cancel button': q4.getByRole('button', { name: `Cancel the pull of ${Q4}` }),
        })
        await page.screenshot({ path: join(shots, `models-hub-pulling-${width}.png`), fullPage: true })
        const load = q4.getByRole('button', { name: `Load ${Q4} into primary` })
        await load.waitFor({ timeout: 30_000 })
      } finally {
        hub.throttle(REPO, 'Tiny-Chat-Q4_K_M.gguf', undefined)
      }
      await q4.getByText(/on disk/).waitFor()

      // Load into primary from the page, then chat with it by its Hub name.
      await q4.getByRole('button', { name: `Load ${Q4} into primary` }).click()
      await expect.poll(slotState, { timeout: 60_000, interval: 250 }).toMatch(/^(ready|idle)$/)
      const chat = await call('/v1/chat/completions', {
        method: 'POST',
        json: { model: Q4, messages: [{ role: 'user', content: 'hello' }], max_tokens: 3 },
      })
      expect(chat.status).toBe(200)
      const answer = (await chat.json()) as { model: string; usage: { completion_tokens: number } }
      expect(answer.usage.completion_tokens).toBe(3)

      // Held by primary: Delete is there, disabled, and says why.
      await q4.getByText(/in primary/).waitFor({ timeout: 10_000 })
      const del = q4.getByRole('button', { name: `Delete ${Q4}` })
      expect(await del.isDisabled()).toBe(true)
      expect(await del.getAttribute('title')).toBe('Slot primary holds it: unload it first')
      await expectWithinWidth(page, width, {
        'the Load button': q4.getByRole('button', { name: `Load ${Q4} into primary` }),
        'the Delete button': del,
      })
      await page.screenshot({ path: join(shots, `models-hub-loaded-${width}.png`), fullPage: true })

      await expectStatus(call('/api/slots/primary/unload?wait=true', { method: 'POST' }), 200, api)
      await expect.poll(() => del.isDisabled(), { timeout: 10_000 }).toBe(false)
      await del.click()
      const ask = page.getByRole('dialog', { name: `Delete ${Q4}?` })
      await ask.getByRole('button', { name: 'Delete' }).click()
      await q4.getByRole('button', { name: `Pull ${Q4}` }).waitFor({ timeout: 10_000 })
      const listed = (await (await call('/api/models')).json()) as {
        models: { id: string; present: boolean }[]
      }
      expect(listed.models.find((m) => m.id === Q4)?.present ?? false).toBe(false)
      await page.screenshot({ path: join(shots, `models-hub-deleted-${width}.png`), fullPage: true })
      for (const stage of ['quants', 'pulling', 'loaded', 'deleted'])
        console.log(`[models-hub e2e] ${join(shots, `models-hub-${stage}-${width}.png`)}`)
      expect(errors).toEqual([])
      await page.context().close()
    }, 180_000)
  }
})
