/** The chat suites' browser: the shared Chromium launcher, with contexts that record page errors. */
import { launchChromium } from '@svc/testing'
import type { BrowserContext, BrowserContextOptions } from 'playwright-core'

export { chromiumAvailable } from '@svc/testing'

export interface Browser extends AsyncDisposable {
  /** A first context (its own cookies, storage and cache). */
  context: BrowserContext
  /** Another, separate context: a second person (`httpCredentials`, `extraHTTPHeaders`…). */
  newContext(options?: BrowserContextOptions): Promise<BrowserContext>
  /** Console errors and uncaught page errors seen so far, in every context. */
  errors: string[]
}

/**
 * Launches headless Chromium with a fake microphone and audio allowed to play without a gesture,
 * and opens a first context.
 */
export async function launchBrowser(options: BrowserContextOptions = {}): Promise<Browser> {
  const chrome = await launchChromium({ autoplay: true, fakeMedia: true })
  const errors: string[] = []
  const newContext = async (contextOptions: BrowserContextOptions = {}) => {
    const context = await chrome.browser.newContext({
      viewport: { width: 1280, height: 900 },
      ...contextOptions,
    })
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
    [Symbol.asyncDispose]: () => chrome[Symbol.asyncDispose](),
  }
}
