/**
 * The setup the dashboard's browser suites share: one real API with auth on (llama-server, and with
 * `media` the ComfyUI stand-in on `img` and espeak-ng on `tts` loaded), one Chromium, and the pages
 * each test opened, closed after the file.
 */

import { launchChromium, type TestBrowser } from '@svc/testing'
import { afterAll, beforeAll } from 'vitest'
import { signInWith, type WatchedPage } from './browser'
import { expectStatus, type Fixture, startFixture } from './fixture'

export interface DashboardSession {
  readonly fx: Fixture
  readonly chrome: TestBrowser
  /** Opens the dashboard signed in with `token` at `width` px (closed after the file). */
  signIn(token: string, width?: number): Promise<WatchedPage>
  /** Closes `page` after the file. */
  track(page: WatchedPage): void
}

/** Registers the file's `beforeAll`/`afterAll`; read the fields inside tests only. */
export function useDashboard(options: { media?: boolean } = {}): DashboardSession {
  let fx: Fixture | undefined
  let chrome: TestBrowser | undefined
  const opened: WatchedPage[] = []

  beforeAll(async () => {
    fx = await startFixture()
    if (options.media) {
      const put = fx.call('/api/slots/img', { method: 'PUT', json: { runtime: 'remote', url: fx.comfy.url } })
      await expectStatus(put, 200, fx.api)
      await Promise.all([fx.load('img', 'sdxl-turbo'), fx.load('tts', 'espeak-ng')])
    }
    // Speech plays without a click on the player (the Speak click is the gesture in a person's browser).
    chrome = await launchChromium({ autoplay: true })
  }, 240_000)

  afterAll(async () => {
    for (const p of opened) await p.context.close().catch(() => undefined)
    await chrome?.[Symbol.asyncDispose]()
    await fx?.[Symbol.asyncDispose]()
  })

  const started = <T>(value: T | undefined): T => {
    if (value === undefined) throw new Error('the dashboard session did not start (see beforeAll)')
    return value
  }
  return {
    get fx() {
      return started(fx)
    },
    get chrome() {
      return started(chrome)
    },
    async signIn(token, width = 1280) {
      const w = await signInWith(started(chrome).browser, started(fx).api.url, token, width)
      opened.push(w)
      return w
    },
    track(page) {
      opened.push(page)
    },
  }
}
