/**
 * The dashboard end to end: headless Chromium against the real API with auth
 * on, real llama-server, espeak-ng and the ComfyUI stand-in. One API and one browser for the file;
 * each test opens its own browser context (its own sessionStorage). Screenshots of every page at
 * 1280 and 390 px go to a temp folder whose path is printed.
 */
import { mkdtemp } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { llamaProcessing, tokensPredictedIn } from '@svc/testing'
import { beforeAll, describe, expect, it } from 'vitest'
import { card, PAGES } from './browser'
import { useDashboard } from './dashboard-session'
import { partsPresent } from './fixture'

const parts = partsPresent()

describe.skipIf(!parts)('the dashboard in a real browser', () => {
  const session = useDashboard({ media: true })
  const { signIn } = session
  let shots: string

  beforeAll(async () => {
    shots = await mkdtemp(join(tmpdir(), 'svc-dashboard-screenshots-'))
    console.log(`\n[dashboard e2e] screenshots: ${shots}\n`)
  })

  it('loads a slot from the UI, showing its states live before ready; asks before unloading while busy; unloads it', async () => {
    const { page, errors } = await signIn(session.fx.tokens.admin)
    await expect(page.getByText('admin · e2e-admin')).toBeTruthy()
    const primary = card(page, 'primary')
    await primary.getByText('Offline').waitFor()
    // Record every state word the card's header shows, as the person sees it change.
    await primary.evaluate((el) => {
      const seen: string[] = []
      ;(window as unknown as { seen: string[] }).seen = seen
      const head = el.querySelector('header')!
      const note = () => {
        const word = /(Offline|Pulling|Starting|Warming|Ready|Serving|Idle|Unloading)/.exec(
          head.textContent ?? '',
        )?.[1]
        if (word && seen.at(-1) !== word) seen.push(word)
      }
      note()
      new MutationObserver(note).observe(head, { subtree: true, childList: true, characterData: true })
    })
    await primary.getByRole('button', { name: 'Load…' }).click()
    const picker = page.getByRole('dialog', { name: 'Load a model into primary' })
    const option = picker.getByRole('radio', { name: /tiny-chat/ })
    await option.check()
    expect(await picker.getByText(/needs download/).count()).toBeGreaterThan(0)
    // The download waits at the gate until the card has shown it: a state between offline and
    // ready is on screen however fast the box loads.
    const release = session.fx.gate.hold()
    try {
      await picker.getByRole('button', { name: 'Load', exact: true }).click()
      await primary.locator('header').getByText('Pulling').waitFor({ timeout: 30_000 })
    } finally {
      release()
    }
    await primary.getByText('Ready').waitFor({ timeout: 90_000 })
    const seen = await page.evaluate(() => (window as unknown as { seen: string[] }).seen)
    expect(seen[0]).toBe('Offline')
    expect(seen.at(-1)).toBe('Ready')
    // at least one state between offline and ready was on screen (pulling, starting or warming)
    expect(
      seen.slice(1, -1).some((s) => ['Pulling', 'Starting', 'Warming'].includes(s)),
      seen.join(' → '),
    ).toBe(true)
    await primary.getByText('tiny-chat').waitFor()

    // With a request in flight, Unload asks first; Cancel leaves the slot serving. The request is
    // long (8000 tokens: a minute or more on one thread, and this test reads only its first chunk),
    // so it is still in flight when the dialog is checked. It is let go of even when a step fails:
    // otherwise the next test's chat waits behind it on the slot's one llama.cpp slot.
    const busy = new AbortController()
    const stream = session.fx
      .call('/v1/chat/completions', {
        method: 'POST',
        json: {
          model: 'primary',
          messages: [{ role: 'user', content: 'go' }],
          max_tokens: 8000,
          stream: true,
        },
        signal: busy.signal,
      })
      .then((r) => r.body?.getReader().read())
      .catch(() => undefined)
    try {
      await primary.getByText('1 in flight').waitFor({ timeout: 30_000 })
      await primary.getByRole('button', { name: 'Unload' }).click()
      const ask = page.getByRole('dialog', { name: 'Unload primary?' })
      // (a failure says what the card, its toasts and the API showed instead, and the poll below
      // what the dialog said)
      await ask.waitFor({ timeout: 15_000 }).catch(async (e: Error) => {
        const api = await (await session.fx.call('/api/slots/primary')).text()
        const toasts = await page.locator('.svc-toast').allTextContents()
        throw new Error(
          `${e.message}\ncard: ${await primary.textContent()}\ntoasts: ${toasts}\napi: ${api.slice(0, 400)}`,
        )
      })
      await expect.poll(() => ask.textContent(), { timeout: 15_000 }).toContain('1 request is in flight')
      await ask.getByRole('button', { name: 'Cancel' }).click()
      await ask.waitFor({ state: 'detached' })
      expect((await (await session.fx.call('/api/slots/primary')).json()).state).toBe('serving')
    } finally {
      busy.abort()
      await stream
    }
    await primary.getByText('Idle').waitFor({ timeout: 30_000 })
    // That stream was cut before its end, so no token counts came: it counts as a request, and
    // tokens/s reads "—" (not 0, not NaN).
    const live = (name: string) => primary.locator('.metrics div', { hasText: name }).locator('dd')
    await expect.poll(() => live('Requests/min').textContent(), { timeout: 10_000 }).toBe('1')
    expect(await live('Tokens/s').textContent()).toBe('—')

    await primary.getByRole('button', { name: 'Unload' }).click()
    await primary.getByText('Offline').waitFor({ timeout: 30_000 })
    expect((await (await session.fx.call('/api/slots/primary')).json()).state).toBe('offline')
    expect(errors).toEqual([])
  }, 180_000)

  it('streams a chat in the playground, and Stop ends the generation upstream', async () => {
    await session.fx.load('primary', 'tiny-chat')
    const predicted = async () =>
      tokensPredictedIn(await (await session.fx.call('/api/metrics')).text(), 'primary')
    const before = await predicted()
    const { page, errors } = await signIn(session.fx.tokens.admin)
    await page.getByRole('link', { name: 'Playground' }).click()
    await page.getByLabel('Max tokens').fill('8000')
    await page.getByLabel('Message').fill('Tell me a long story.')
    await page.getByRole('button', { name: 'Send' }).click()
    const answer = page.getByRole('listitem').filter({ hasText: 'Assistant' })
    // Text arrives while the answer is still streaming (the Stop button is there), not all at the end.
    // The deadlines below suit a loaded box. They cannot outlast the answer: the pane overflows after
    // some 1,500 of its 8000 tokens (on one squeezed core too), so it still streams when they pass.
    await page.waitForFunction(
      () => {
        const items = [...document.querySelectorAll('li')].filter((li) =>
          li.textContent?.startsWith('Assistant'),
        )
        return (items.at(-1)?.textContent?.length ?? 0) > 30
      },
      undefined,
      { timeout: 60_000 },
    )
    // Stop stays under the pointer while the answer grows: the conversation scrolls in its own pane
    // and follows the answer's end. (A Stop that moved with every line is hard to hit, for a person
    // and for Playwright, whose click waits for the button to hold still.)
    const stop = page.getByRole('button', { name: 'Stop' })
    const conversation = page.getByRole('list', { name: 'Conversation' })
    await page.waitForFunction(
      () => {
        const pane = document.querySelector('[aria-label="Conversation"]')
        return pane !== null && pane.scrollHeight > pane.clientHeight // the answer outgrew its pane
      },
      undefined,
      { timeout: 120_000 },
    )
    const at = await stop.boundingBox()
    expect(at, 'Stop is offered: the answer is still streaming').not.toBeNull()
    await page.waitForTimeout(300)
    expect(await stop.boundingBox()).toEqual(at)
    expect(
      await conversation.evaluate((el) => el.scrollHeight - el.scrollTop - el.clientHeight),
    ).toBeLessThan(24)
    await stop.click()
    await page.getByRole('button', { name: 'Send' }).waitFor()
    const shown = (await answer.last().textContent()) ?? ''
    expect(shown.length).toBeGreaterThan(30)

    // llama-server stopped: the slot is idle, no llama.cpp slot is processing, far fewer than 8000 tokens.
    const slotNow = async () =>
      (await (await session.fx.call('/api/slots/primary')).json()) as {
        state: string
        upstream: { base: string; pid: number }
      }
    await expect.poll(async () => (await slotNow()).state, { timeout: 15_000 }).toBe('idle')
    const slot = await slotNow()
    await expect.poll(() => llamaProcessing(slot.upstream), { timeout: 15_000 }).toBe(false)
    await new Promise((r) => setTimeout(r, 500))
    const generated = (await predicted()) - before
    expect(generated).toBeGreaterThan(0)
    expect(generated).toBeLessThan(4000)

    // A streamed answer that ends gives the slot its tokens/s (from llama-server's own timings).
    await page.getByLabel('Max tokens').fill('16')
    await page.getByLabel('Message').fill('A short one.')
    const answered = page.waitForResponse((r) => r.url().endsWith('/v1/chat/completions'))
    await page.getByRole('button', { name: 'Send' }).click()
    // The answer is over when the view offers Send again. (Not the response's finished(): the page
    // lets go of the body once it reads [DONE], and a body let go of never "finishes" for Playwright.)
    await answered
    await page.getByRole('button', { name: 'Send' }).waitFor({ timeout: 30_000 })
    await page.getByRole('link', { name: 'Slots' }).click()
    const speed = card(page, 'primary').locator('.metrics div', { hasText: 'Tokens/s' }).locator('dd')
    await expect.poll(async () => Number(await speed.textContent()), { timeout: 10_000 }).toBeGreaterThan(0)
    expect(errors).toEqual([])
  }, 300_000)

  it('shows the live log of a slot', async () => {
    const { page, errors } = await signIn(session.fx.tokens.admin)
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Logs' }).click()
    await page.getByLabel('Slot').selectOption('primary')
    const log = page.getByRole('log', { name: 'Log of primary' })
    await log
      .getByText(/llama|server/i)
      .first()
      .waitFor()
    await page
      .getByRole('status')
      .filter({ hasText: /^Live · \d+ lines?/ })
      .waitFor()
    expect(await page.getByRole('button', { name: 'Download' }).isEnabled()).toBe(true)
    expect(errors).toEqual([])
  }, 60_000)

  it("creates a custom slot, showing the server's message next to the field it names", async () => {
    const { page, errors } = await signIn(session.fx.tokens.admin)
    await page.getByRole('button', { name: 'New custom slot' }).click()
    const form = page.getByRole('dialog', { name: 'New custom slot' })
    await form.getByLabel('Name').fill('far-img')
    await form.getByLabel('Provider').fill('image')
    await form.getByLabel('Runtime', { exact: true }).selectOption('remote')
    await form.getByLabel('URL (remote runtime)').fill('ftp://10.0.0.5/x')
    await form.getByRole('button', { name: 'Create slot' }).click()
    const url = form.getByLabel('URL (remote runtime)')
    await form.getByRole('alert').waitFor()
    const description = await url.evaluate((el) =>
      (el.getAttribute('aria-describedby') ?? '')
        .split(' ')
        .map((id) => document.getElementById(id)?.textContent ?? '')
        .join(' '),
    )
    expect(description).toMatch(/url.*http\(s\) URL/)
    await url.fill(session.fx.comfy.url)
    await form.getByRole('button', { name: 'Create slot' }).click()
    await form.waitFor({ state: 'detached' })
    const created = card(page, 'far-img')
    await created.getByText('Offline').waitFor()
    await created.getByText('ComfyUI on a remote server', { exact: true }).waitFor()
    // The browser logs the refused request it was told to make, and nothing else.
    expect(errors).toEqual([
      'console: Failed to load resource: the server responded with a status of 400 (Bad Request)',
    ])
  }, 60_000)

  it('pulls a model without loading it, then deletes it after asking', async () => {
    const { page, errors } = await signIn(session.fx.tokens.admin)
    await page.getByRole('link', { name: 'Models' }).click()
    await page.getByLabel('Search').fill('tiny')
    const row = page.getByRole('row').filter({ hasText: 'tiny-extra' })
    await row.getByRole('button', { name: 'Pull tiny-extra' }).click()
    await row.getByRole('button', { name: 'Delete tiny-extra' }).waitFor({ timeout: 30_000 })
    expect(await row.getByRole('cell', { name: 'yes', exact: true }).count()).toBe(1)
    // A model a slot holds cannot be deleted: the button says why.
    const held = page
      .getByRole('row')
      .filter({ hasText: 'tiny-chat' })
      .getByRole('button', { name: 'Delete tiny-chat' })
    expect(await held.isDisabled()).toBe(true)
    expect(await held.getAttribute('title')).toBe('Slot primary holds it: unload it first')
    await row.getByRole('button', { name: 'Delete tiny-extra' }).click()
    await page
      .getByRole('dialog', { name: 'Delete tiny-extra?' })
      .getByRole('button', { name: 'Delete' })
      .click()
    await row.getByRole('button', { name: 'Pull tiny-extra' }).waitFor()
    expect(await row.getByRole('cell', { name: 'no', exact: true }).count()).toBe(1)
    const models = (await (await session.fx.call('/api/models')).json()) as {
      models: { id: string; present: boolean }[]
    }
    expect(models.models.find((m) => m.id === 'tiny-extra')?.present).toBe(false)
    expect(errors).toEqual([])
  }, 60_000)

  it('lists the models this machine runs; Show all adds the rest, each saying why not', async () => {
    const { page, errors } = await signIn(session.fx.tokens.admin)
    await page.getByRole('link', { name: 'Models' }).click()
    await page.getByRole('row').filter({ hasText: 'tiny-chat' }).waitFor()
    const all = (await (await session.fx.call('/api/models')).json()) as {
      models: { id: string; offered: boolean; reason: string | null }[]
    }
    const notOffered = all.models.filter((m) => !m.offered)
    // This machine has no NPU: the NPU models are catalogued but not offered.
    const npu = all.models.find((m) => m.id.startsWith('flm-'))
    expect(npu).toMatchObject({ offered: false, reason: expect.stringMatching(/^npu: /) })
    const toggle = page.getByLabel(/^Show all \(\d+ not offered here\)$/)
    expect(await toggle.isChecked()).toBe(false)
    expect(await page.getByRole('row').filter({ hasText: npu!.id }).count()).toBe(0)
    const label = await page.locator('label', { hasText: 'Show all' }).textContent()
    expect(label).toBe(`Show all (${notOffered.length} not offered here)`)
    await toggle.check()
    const row = page.getByRole('row').filter({ hasText: npu!.id })
    await row.getByText(`Not offered here: ${npu!.reason}`).waitFor()
    expect(await row.getByRole('button').count()).toBe(0)
    await page.screenshot({ path: join(shots, 'models-show-all-1280.png'), fullPage: true })
    // the provider filter narrows the list; search still works on top
    await page.getByLabel('Provider').selectOption('llm')
    expect(await page.getByRole('row').filter({ hasText: npu!.id }).count()).toBe(0)
    await page.getByLabel('Search').fill('tiny-ch')
    expect(await page.getByRole('row').count()).toBe(2) // the header and tiny-chat
    expect(errors).toEqual([])
  }, 60_000)

  it('generates an image on the img slot and shows it with _svc', async () => {
    const { page, errors } = await signIn(session.fx.tokens.admin)
    await page.goto(`${session.fx.api.url}/playground/image`)
    await page.getByLabel('Prompt', { exact: true }).fill('a red cube on a table')
    await page.getByLabel('Size (WxH)').fill('256x256')
    await page.getByLabel('Seed').fill('42')
    await page.getByLabel('Steps').fill('2')
    await page.getByRole('button', { name: 'Generate' }).click()
    const image = page.getByRole('img', { name: /Generated 1 of 1: a red cube on a table/ })
    await image.waitFor({ timeout: 60_000 })
    const size = await image.evaluate((img: HTMLImageElement) =>
      img.decode().then(() => [img.naturalWidth, img.naturalHeight]),
    )
    expect(size).toEqual([256, 256])
    expect(await page.getByText('"workflow": "sdxl-turbo"').count()).toBe(1)
    expect(String(session.fx.comfy.prompts.at(-1)?.raw)).toContain('"noise_seed":42')
    expect(errors).toEqual([])
  }, 90_000)

  it('lists the voices of the tts slot and plays speech in the chosen one', async () => {
    const { page, errors } = await signIn(session.fx.tokens.admin)
    await page.goto(`${session.fx.api.url}/playground/speech`)
    const voice = page.getByLabel('Voice')
    await page.getByRole('option', { name: /^nova/ }).waitFor({ state: 'attached' })
    await voice.selectOption('nova')
    await page.getByLabel('Format').selectOption('wav')
    await page.getByLabel('Text').fill('Hello from the dashboard test.')
    await page.getByRole('button', { name: 'Speak' }).click()
    const player = page.getByLabel('Generated speech')
    await player.waitFor()
    // It plays: the media element advances through a real decoded clip.
    const played = await player.evaluate(
      (audio: HTMLAudioElement) =>
        new Promise<{ duration: number; time: number }>((resolve, reject) => {
          const timer = setTimeout(
            () => reject(new Error(`did not play (readyState ${audio.readyState})`)),
            15_000,
          )
          const check = () => {
            if (audio.currentTime > 0.1) {
              clearTimeout(timer)
              resolve({ duration: audio.duration, time: audio.currentTime })
            } else setTimeout(check, 50)
          }
          void audio.play().catch(() => undefined)
          check()
        }),
    )
    expect(played.time).toBeGreaterThan(0.1)
    expect(errors).toEqual([])
  }, 60_000)

  it('screenshots every page at 1280 and 390 px, with no console errors and no sideways scrolling', async () => {
    for (const width of [1280, 390]) {
      const { page, errors } = await signIn(session.fx.tokens.admin, width)
      for (const [name, path, heading] of PAGES) {
        await page.goto(session.fx.api.url + path)
        await page.getByRole('heading', { name: heading, level: 1 }).waitFor()
        await page.getByRole('status', { name: 'Live updates: Live' }).waitFor()
        await page.waitForTimeout(400) // let lists that load after the heading arrive
        await page.screenshot({ path: join(shots, `${name}-${width}.png`), fullPage: true })
        const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth)
        expect(overflow, `${name} at ${width}px scrolls sideways by ${overflow}px`).toBeLessThanOrEqual(0)
        if (name === 'slots') {
          // A running slot's controls: its actions on one row, its tools on one row (no lone button).
          const tts = card(page, 'tts')
          const rowOf = async (names: string[]) =>
            new Set(
              await Promise.all(
                names.map(async (n) =>
                  Math.round(
                    (
                      await tts
                        .getByRole(n === 'Logs of tts' ? 'link' : 'button', { name: n, exact: true })
                        .boundingBox()
                    )?.y ?? -1,
                  ),
                ),
              ),
            )
          expect((await rowOf(['Load…', 'Reload', 'Unload'])).size, `actions at ${width}px`).toBe(1)
          expect((await rowOf(['Settings', 'Logs of tts'])).size, `tools at ${width}px`).toBe(1)
        }
      }
      expect(errors).toEqual([])
    }
    console.log(`[dashboard e2e] ${PAGES.length * 2} screenshots in ${shots}`)
  }, 120_000)
})
