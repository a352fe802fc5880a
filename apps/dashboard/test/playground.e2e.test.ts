/**
 * The playground as a newcomer meets it (issue 39, points 1, 2, 4 and 5), in Chromium at 1280×800 and
 * 390×844 against the real API and llama-server: the chat list offers only models that chat, an
 * empty slot's failure offers Load right there (never a command) and Send again answers, each answer
 * shows tokens/s and time to first token, the system prompt and temperature go out with the request,
 * Clear empties; Transcribe and image Generate are disabled, with the reason, where they cannot run.
 */
import { saveScreenshot, VIEWPORTS } from '@svc/testing'
import type { Page } from 'playwright-core'
import { beforeAll, describe, expect, it } from 'vitest'
import { useDashboard } from './dashboard-session'
import { expectStatus, partsPresent } from './fixture'

const SUITE = 'playground'

interface V1Entry {
  id: string
  capabilities: string[] | null
}

/** Whether an element lies wholly inside the page's viewport (no sideways scroll to reach it). */
async function onScreen(page: Page, box: { x: number; y: number; width: number } | null) {
  const width = page.viewportSize()!.width
  expect(box).not.toBeNull()
  expect(box!.x).toBeGreaterThanOrEqual(0)
  expect(box!.x + box!.width).toBeLessThanOrEqual(width)
}

async function noSidewaysScroll(page: Page) {
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth)
  expect(overflow, 'the page scrolls sideways').toBeLessThanOrEqual(0)
}

describe.skipIf(!partsPresent())('the playground in a real browser', () => {
  const session = useDashboard()
  // A model that does not chat, listed by /v1/models while it is loaded: the chat list must leave it out.
  beforeAll(() => session.fx.load('tts', 'espeak-ng'), 60_000)

  const open = async (viewport: (typeof VIEWPORTS)[keyof typeof VIEWPORTS], path: string) => {
    const w = await session.signIn(session.fx.tokens.admin, viewport.width)
    await w.page.setViewportSize(viewport)
    await w.page.goto(session.fx.api.url + path)
    await w.page.getByRole('heading', { name: 'Playground', level: 1 }).waitFor()
    return w
  }
  const unload = async (slot: string) =>
    expectStatus(
      session.fx.call(`/api/slots/${slot}/unload?wait=true`, { method: 'POST' }),
      200,
      session.fx.api,
    )

  for (const [name, viewport] of Object.entries(VIEWPORTS)) {
    it(`${name}: the chat list offers only models that chat; an empty slot offers Load, and Send again answers`, async () => {
      await unload('primary')
      const { page, errors } = await open(viewport, '/playground/chat')
      const select = page.getByLabel('Model', { exact: true })
      await select.locator('option').first().waitFor({ state: 'attached' })
      const offered = (await select.locator('option').allTextContents()).map((t) => t.replace(/ \(.*\)$/, ''))
      const listed = ((await (await session.fx.call('/v1/models')).json()) as { data: V1Entry[] }).data
      const notChat = listed.filter((m) => m.capabilities !== null && !m.capabilities.includes('chat'))
      expect(notChat.map((m) => m.id)).toContain('tts')
      for (const m of notChat)
        expect(offered, `${m.id} (${m.capabilities}) offered for chat`).not.toContain(m.id)
      for (const id of ['embed', 'stt', 'tts']) expect(offered).not.toContain(id)
      expect(offered).toContain('primary')

      await select.selectOption('primary')
      await page.getByLabel('Message').fill('Hello there')
      await page.getByRole('button', { name: 'Send' }).click()
      const alert = page.getByRole('alert')
      await alert.getByText('primary holds no model right now').waitFor()
      expect(await page.getByText(/svc slot|load one with/).count()).toBe(0)
      // No empty "Assistant" bubble; the question stays.
      const conversation = page.getByRole('list', { name: 'Conversation' })
      expect(await conversation.getByRole('listitem').allTextContents()).toEqual(['YouHello there'])
      const load = alert.getByRole('button', { name: 'Load primary' })
      await onScreen(page, await load.boundingBox())
      await saveScreenshot(page, SUITE, 'playground-chat-empty-slot')

      await load.click()
      // primary has no default model: the picker of what it runs here opens.
      const picker = page.getByRole('dialog', { name: 'Load a model into primary' })
      await picker.getByRole('radio', { name: /tiny-chat/ }).check()
      await picker.getByRole('button', { name: 'Load', exact: true }).click()
      const again = alert.getByRole('button', { name: 'Send again' })
      await again.waitFor({ timeout: 90_000 })
      await alert.getByText('primary is ready.').waitFor()
      await again.click()
      await alert.waitFor({ state: 'detached', timeout: 30_000 })
      const answer = conversation.getByRole('listitem').filter({ hasText: 'Assistant' })
      await answer.getByText(/tokens\/s · .* to first token/).waitFor({ timeout: 60_000 })
      expect(await conversation.getByRole('listitem').count()).toBe(2)
      await noSidewaysScroll(page)
      await saveScreenshot(page, SUITE, 'playground-chat-loaded-answer')
      expect(errors.filter((e) => !e.includes('409'))).toEqual([])
    }, 180_000)

    it(`${name}: shows tokens/s and time to first token; the system prompt and temperature go out; Clear empties`, async () => {
      await session.fx.load('primary', 'tiny-chat')
      const { page, errors } = await open(viewport, '/playground/chat')
      await page.getByLabel('Model', { exact: true }).selectOption('primary')
      const sent: Record<string, unknown>[] = []
      page.on('request', (r) => {
        if (r.method() === 'POST' && r.url().endsWith('/v1/chat/completions')) sent.push(r.postDataJSON())
      })
      await page.getByLabel('Max tokens').fill('12')
      await page.getByLabel('Temperature').fill('0.3')
      await page.getByLabel('System prompt').fill('You answer in one word.')
      await page.getByLabel('Message').fill('Say something.')
      await page.getByRole('button', { name: 'Send' }).click()
      const conversation = page.getByRole('list', { name: 'Conversation' })
      const figures = conversation.getByText(/tokens\/s · .* to first token/)
      await figures.waitFor({ timeout: 60_000 })
      const text = (await figures.textContent()) ?? ''
      const match = /^([\d.]+) tokens\/s · (\d+ ms|[\d.]+ s) to first token/.exec(text)
      expect(match, text).not.toBeNull()
      expect(Number(match![1])).toBeGreaterThan(0)
      await onScreen(page, await figures.boundingBox())
      expect(sent).toHaveLength(1)
      expect(sent[0]).toMatchObject({
        model: 'primary',
        temperature: 0.3,
        max_tokens: 12,
        stream: true,
        messages: [
          { role: 'system', content: 'You answer in one word.' },
          { role: 'user', content: 'Say something.' },
        ],
      })
      await saveScreenshot(page, SUITE, 'playground-chat-answer-figures')
      await page.getByRole('button', { name: 'Clear' }).click()
      expect(await conversation.getByRole('listitem').count()).toBe(0)
      expect(await page.getByRole('button', { name: 'Clear' }).isDisabled()).toBe(true)
      await noSidewaysScroll(page)
      expect(errors).toEqual([])
    }, 120_000)

    it(`${name}: Transcribe is disabled with the reason while stt is empty; image Generate is disabled where images cannot run`, async () => {
      const { page, errors } = await open(viewport, '/playground/transcribe')
      // A file chosen: the button is still disabled, because nothing here can transcribe now.
      await page.getByLabel('Audio file').setInputFiles({
        name: 'notes.txt',
        mimeType: 'text/plain',
        buffer: Buffer.from('not audio'),
      })
      const transcribe = page.getByRole('button', { name: 'Transcribe' })
      const note = page.getByRole('note').filter({ hasText: /speech-to-text/ })
      await note.waitFor()
      expect(await transcribe.isDisabled()).toBe(true)
      expect(await note.textContent()).toMatch(/No speech-to-text model is loaded: stt is empty|cannot run/)
      expect(await note.getByRole('button', { name: 'Load stt' }).or(note.getByRole('link')).count()).toBe(1)
      await onScreen(page, await note.boundingBox())
      await saveScreenshot(page, SUITE, 'playground-transcribe-stt-empty')

      await page.getByRole('link', { name: 'Image' }).click()
      const generate = page.getByRole('button', { name: 'Generate' })
      const why = page.getByRole('note').filter({ hasText: /image/i })
      await why.waitFor()
      expect(await generate.isDisabled()).toBe(true)
      expect(await why.textContent()).toMatch(/cannot run on this machine|No image model is loaded/)
      expect(await why.textContent()).not.toMatch(/svc /)
      await onScreen(page, await why.boundingBox())
      await noSidewaysScroll(page)
      await saveScreenshot(page, SUITE, 'playground-image-unavailable')
      expect(errors).toEqual([])
    }, 60_000)
  }
})
