/**
 * The real browser of svc's browser tests: Debian's Chromium (no browser download) driven through
 * playwright-core, headless, with the house flags. Every launch gets a fresh temporary profile from
 * Playwright (it refuses `--user-data-dir` in `args`) and loses it on close.
 */
import { existsSync } from 'node:fs'
import { type Browser, chromium } from 'playwright-core'
import { missingPart } from './require-part'
import { testEnv } from './test-env'

/** The browser binary: `SVC_CHROMIUM`, or Debian's `/usr/bin/chromium`. */
export const CHROMIUM = testEnv.chromium

/** Headless, no sandbox or GPU, and nothing that reaches the network behind the test's back. */
export const CHROMIUM_FLAGS: readonly string[] = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
]

/** Whether Chromium is here; when it is not, that is reported as a missing part (a failure in CI). */
export function chromiumAvailable(): boolean {
  if (existsSync(CHROMIUM)) return true
  missingPart('chromium', 'run ./scripts/setup.sh (apt: chromium), or set SVC_CHROMIUM')
  return false
}

export interface LaunchChromiumOptions {
  /** Sound plays without a click (in a person's browser a click, e.g. Speak, is the gesture). */
  autoplay?: boolean
  /** Chromium's fake microphone and camera, granted without a prompt (voice input). */
  fakeMedia?: boolean
  /** Flags beyond the house set (e.g. a host-resolver rule for a test's name). */
  args?: readonly string[]
}

/** A launched Chromium; dispose closes it. */
export interface TestBrowser extends AsyncDisposable {
  browser: Browser
}

/** Launches Chromium with {@link CHROMIUM_FLAGS} and what `options` adds. */
export async function launchChromium(options: LaunchChromiumOptions = {}): Promise<TestBrowser> {
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: [
      ...CHROMIUM_FLAGS,
      ...(options.fakeMedia ? ['--use-fake-device-for-media-stream', '--use-fake-ui-for-media-stream'] : []),
      ...(options.autoplay ? ['--autoplay-policy=no-user-gesture-required'] : []),
      ...(options.args ?? []),
    ],
  })
  return {
    browser,
    async [Symbol.asyncDispose]() {
      await browser.close().catch(() => undefined)
    },
  }
}
