/**
 * The playground as a newcomer meets it (issue 39, points 1, 2, 4 and 5), in Chromium at 1280×800 and
 * 390×844 against the real API and llama-server: the chat list offers only models that chat, an
 * empty slot's failure offers Load right there (never a command) and Send again answers, each answer
 * shows tokens/s and time to first token, the system prompt and temperature go out with the request,
 * Clear empties; Transcribe and image Generate are disabled, with the reason, where they cannot run.
 */
import { mkdtemp } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { findEngine } from '@svc/engines'
import { missingPart, saveScreenshot, VIEWPORTS, writeTinyWhisper } from '@svc/testing'
import type { Page } from 'playwright-core'
import { beforeAll, describe, expect, it } from 'vitest'
import { useDashboard } from './dashboard-session'
import { expectStatus, partsPresent } from './fixture'

const SUITE = 'playground'
const whisper = Boolean(findEngine('whisper-server', process.env))
if (!whisper) missingPart('whisper-server', 'run ./scripts/setup.sh (svc engines build whisper-server)')

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

  it('claims nothing about slots before the live slot list has come, however soon /v1/models answers', async () => {
    const { page, errors } = await session.signIn(session.fx.tokens.admin)
    let release = () => {}
    const held = new Promise<void>((resolve) => {
      release = resolve
    })
    // The live store's stream held in the browser: /v1/models answers first, as on a busy server.
    await page.route('**/api/events**', async (route) => {
      await held
      await route.continue()
    })
    const models = page.waitForResponse((res) => new URL(res.url()).pathname === '/v1/models')
    await page.goto(`${session.fx.api.url}/playground/transcribe`)
    await (await models).finished()
    await page.waitForTimeout(300) // the page renders what /v1/models said
    const note = page.getByRole('note').filter({ hasText: /speech-to-text/ })
    expect(await note.count()).toBe(0)
    expect(await page.getByRole('button', { name: 'Transcribe' }).isDisabled()).toBe(true)
    release()
    await note.waitFor()
    expect(await note.textContent()).toMatch(/No speech-to-text model is loaded: stt is empty/)
    await page.unroute('**/api/events**')
    expect(errors).toEqual([])
  }, 60_000)

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
  describe.skipIf(!whisper)('failures that are the caller\u2019s, with their fix in the page', () => {
    beforeAll(async () => {
      const dir = await mkdtemp(join(tmpdir(), 'svc-playground-stt-'))
      const stt = await writeTinyWhisper(join(dir, 'tiny-whisper.bin'))
      await Promise.all([session.fx.load('stt', stt.path), session.fx.load('primary', 'tiny-chat')])
    }, 120_000)

    for (const [name, viewport] of Object.entries(VIEWPORTS)) {
      it(`${name}: a conversation over the context links to the slot's settings; a text file for transcription is "not audio"`, async () => {
        const { page, errors } = await open(viewport, '/playground/chat')
        await page.getByLabel('Model', { exact: true }).selectOption('primary')
        // Far more tokens than the 8192 primary runs with.
        await page.getByLabel('Message').fill('hello world '.repeat(6000))
        await page.getByRole('button', { name: 'Send' }).click()
        const alert = page.getByRole('alert')
        await alert.getByText('This conversation is longer than the context primary runs with').waitFor()
        expect(await alert.textContent()).not.toMatch(/svc |ctx_size/)
        const settings = alert.getByRole('link', { name: "Open primary's settings" })
        expect(await settings.getAttribute('href')).toBe('/?settings=primary')
        await onScreen(page, await settings.boundingBox())
        await saveScreenshot(page, SUITE, 'playground-chat-context-too-long')

        await page.getByRole('link', { name: 'Transcribe' }).click()
        await page.getByLabel('Model', { exact: true }).selectOption('stt')
        await page.getByLabel('Audio file').setInputFiles({
          name: 'notes.txt',
          mimeType: 'text/plain',
          buffer: Buffer.from('these are notes, not audio\n'.repeat(20)),
        })
        await page.getByRole('button', { name: 'Transcribe' }).click()
        await page
          .getByRole('alert')
          .getByText('This file is not audio svc can read (wav, mp3, ogg, flac, m4a, webm…).')
          .waitFor({ timeout: 30_000 })
        await saveScreenshot(page, SUITE, 'playground-transcribe-not-audio')
        // The browser logs the two refused requests (400) it was told to make, and nothing else.
        expect(errors.filter((e) => !/status of 400/.test(e))).toEqual([])
      }, 90_000)
    }
  })
})
