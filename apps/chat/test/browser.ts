/** Debian's Chromium, headless, through playwright-core (no browser download). */
import { existsSync } from 'node:fs'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { missingPart } from '@svc/testing'
import { type BrowserContext, chromium } from 'playwright-core'

export const CHROMIUM = process.env.SVC_CHROMIUM || '/usr/bin/chromium'

/** Whether Chromium is here; in CI its absence fails the run. */
export function chromiumAvailable(): boolean {
  if (existsSync(CHROMIUM)) return true
  missingPart('chromium', 'run ./scripts/setup.sh (apt: chromium)')
  return false
}

export interface Browser extends AsyncDisposable {
  context: BrowserContext
  /** Console errors and uncaught page errors seen so far. */
  errors: string[]
}

/**
 * Launches headless Chromium with a fresh profile (flags per the project's standard), a fake
 * microphone, and audio allowed to play without a gesture. `extraHTTPHeaders` are sent on every
 * request (a test standing in for the proxy's identity header).
 */
export async function launchBrowser(
  options: { extraHTTPHeaders?: Record<string, string> } = {},
): Promise<Browser> {
  const profile = await mkdtemp(join(tmpdir(), 'svc-chat-chromium-'))
  const context = await chromium.launchPersistentContext(profile, {
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
    viewport: { width: 1280, height: 900 },
    ...(options.extraHTTPHeaders ? { extraHTTPHeaders: options.extraHTTPHeaders } : {}),
  })
  const errors: string[] = []
  context.on('console', (message) => {
    if (message.type() === 'error') errors.push(message.text())
  })
  context.on('weberror', (error) => errors.push(error.error().message))
  return {
    context,
    errors,
    async [Symbol.asyncDispose]() {
      await context.close().catch(() => undefined)
      await rm(profile, { recursive: true, force: true })
    },
  }
}
