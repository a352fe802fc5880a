/**
 * The real browser for the end-to-end suite: Debian's Chromium through playwright-core (no browser
 * download), with the flags of the house standard and a fresh profile per launch.
 */
import { existsSync } from 'node:fs'
import {
  type Browser,
  type BrowserContext,
  type BrowserContextOptions,
  chromium,
  type Locator,
  type Page,
} from 'playwright-core'

export const CHROMIUM = process.env.SVC_CHROMIUM ?? '/usr/bin/chromium'

export function chromiumAvailable(): boolean {
  return existsSync(CHROMIUM)
}

export interface TestBrowser extends AsyncDisposable {
  browser: Browser
}

/** `args`: flags beyond the house set (e.g. a host-resolver rule for a test name). */
export async function launchChromium(options: { args?: string[] } = {}): Promise<TestBrowser> {
  // Playwright gives every launch a fresh temporary profile (it refuses --user-data-dir in args).
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      // Speech plays without a click on the player (the Speak click is the gesture in a person's browser).
      '--autoplay-policy=no-user-gesture-required',
      ...(options.args ?? []),
    ],
  })
  return {
    browser,
    async [Symbol.asyncDispose]() {
      await browser.close()
    },
  }
}

export interface WatchedPage {
  context: BrowserContext
  page: Page
  /** Console errors and uncaught exceptions seen so far. */
  errors: string[]
}

/**
 * A page in a fresh context (its own sessionStorage) that records console errors; `options` for the
 * context (e.g. `httpCredentials` for a proxy's basic auth).
 */
export async function openPage(
  browser: Browser,
  width = 1280,
  options: BrowserContextOptions = {},
): Promise<WatchedPage> {
  const context = await browser.newContext({ viewport: { width, height: 900 }, ...options })
  const page = await context.newPage()
  const errors: string[] = []
  page.on('console', (m) => {
    if (m.type() === 'error') errors.push(`console: ${m.text()}`)
  })
  page.on('pageerror', (e) => errors.push(`page: ${e.message}`))
  return { context, page, errors }
}

/** Every page of the dashboard: screenshot name, path, its h1. */
export const PAGES = [
  ['slots', '/', 'Slots'],
  ['models', '/models', 'Models'],
  ['playground-chat', '/playground/chat', 'Playground'],
  ['playground-embeddings', '/playground/embeddings', 'Playground'],
  ['playground-rerank', '/playground/rerank', 'Playground'],
  ['playground-image', '/playground/image', 'Playground'],
  ['playground-speech', '/playground/speech', 'Playground'],
  ['playground-transcribe', '/playground/transcribe', 'Playground'],
  ['logs', '/logs/primary', 'Logs'],
  ['settings', '/settings', 'Settings'],
] as const

/** A fresh context signed in with `token` through the dashboard's own prompt, by keyboard. */
export async function signInWith(
  browser: Browser,
  url: string,
  token: string,
  width = 1280,
): Promise<WatchedPage> {
  const w = await openPage(browser, width)
  await w.page.goto(url)
  await w.page.getByRole('heading', { name: 'Sign in to svc' }).waitFor()
  await w.page.getByLabel('API token').fill(token)
  await w.page.getByLabel('API token').press('Enter')
  await w.page.getByRole('heading', { name: 'Slots', level: 1 }).waitFor()
  await w.page.getByRole('status', { name: 'Live updates: Live' }).waitFor()
  return w
}

/** A slot's card, by its heading. */
export function card(page: Page, slot: string): Locator {
  return page.getByRole('article', { name: slot, exact: true })
}
