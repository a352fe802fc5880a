/** Debian's Chromium, headless, through playwright-core (no browser download). */
import { existsSync } from 'node:fs'
import { missingPart } from '@svc/testing'
import { type BrowserContext, type BrowserContextOptions, chromium } from 'playwright-core'

export const CHROMIUM = process.env.SVC_CHROMIUM || '/usr/bin/chromium'

/** Whether Chromium is here; in CI its absence fails the run. */
export function chromiumAvailable(): boolean {
  if (existsSync(CHROMIUM)) return true
  missingPart('chromium', 'run ./scripts/setup.sh (apt: chromium)')
  return false
}

export interface Browser extends AsyncDisposable {
  /** A first context (its own cookies, storage and cache). */
  context: BrowserContext
  /** Another, separate context: a second person (`httpCredentials`, `extraHTTPHeaders`…). */
  newContext(options?: BrowserContextOptions): Promise<BrowserContext>
  /** Console errors and uncaught page errors seen so far, in every context. */
  errors: string[]
}

/**
 * Launches headless Chromium with the project's flags, a fake microphone, and audio allowed to play
 * without a gesture. Playwright gives the browser a fresh temporary profile (`--user-data-dir`) and
 * removes it on close.
 */
export async function launchBrowser(options: BrowserContextOptions = {}): Promise<Browser> {
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
      '--use-fake-device-for-media-stream',
      '--use-fake-ui-for-media-stream',
      '--autoplay-policy=no-user-gesture-required',
    ],
  })
  const errors: string[] = []
  const newContext = async (contextOptions: BrowserContextOptions = {}) => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, ...contextOptions })
    context.on('console', (message) => {
      if (message.type() === 'error') errors.push(message.text())
    })
    context.on('weberror', (error) => errors.push(error.error().message))
    return context
  }
  return {
    context: await newContext(options),
    newContext,
    errors,
    async [Symbol.asyncDispose]() {
      await browser.close().catch(() => undefined)
    },
  }
}
