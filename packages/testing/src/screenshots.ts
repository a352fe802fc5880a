/**
 * Where the browser tests keep their screenshots, and the two widths every page is checked at. The
 * screenshots are CI artefacts, never committed: `SVC_ARTIFACTS_DIR/screenshots/<suite>/`, default
 * `<repo>/artifacts/screenshots/<suite>/` (git-ignored). A reviewer (or the closing note) reads them
 * to describe each page as a user sees it.
 */
import { mkdirSync } from 'node:fs'
import { join } from 'node:path'
import type { Page } from 'playwright-core'
import { REPO_ROOT } from './repo-root'
import { testEnv } from './test-env'

/** A laptop screen and a phone (iPhone 12–15 class), in CSS pixels. */
export const VIEWPORTS = {
  desktop: { width: 1280, height: 800 },
  phone: { width: 390, height: 844 },
} as const

export type ViewportName = keyof typeof VIEWPORTS

/** The folder for one suite's screenshots (made if missing). */
export function screenshotDir(suite: string): string {
  const root = testEnv.artifactsDir ?? join(REPO_ROOT, 'artifacts')
  const dir = join(root, 'screenshots', suite)
  mkdirSync(dir, { recursive: true })
  return dir
}

/**
 * Saves a full-page PNG of `page` as `<suite>/<name>-<width>.png` and returns its path. `width` is
 * the page's viewport width (so one test can call it at both widths without naming them).
 */
export async function saveScreenshot(page: Page, suite: string, name: string): Promise<string> {
  const width = page.viewportSize()?.width ?? 0
  const path = join(screenshotDir(suite), `${name}-${width}.png`)
  await page.screenshot({ path, fullPage: true })
  return path
}
