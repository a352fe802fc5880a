/**
 * The dashboard suites' pages in the shared Chromium (`launchChromium` from `@svc/testing`): pages
 * that record their errors, the dashboard's page list, its sign-in, a slot's card.
 */
import type { Browser, BrowserContext, BrowserContextOptions, Locator, Page } from 'playwright-core'

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
  ['usage', '/usage', 'Usage'],
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
