/**
 * The chat app as people know it (issue 39), in Chromium at a laptop's and a phone's size, against
 * the real stack (svc over llama-server, tiny random-weight models): the message box stays on screen
 * and a conversation opens at its latest message; conversation and message actions wait in "⋯" menus;
 * Stop stops a streaming answer; a model that is not loaded is marked so and offers Load (no command),
 * which loads it; a paste over the limit is refused in MB before anything is sent, the text kept.
 */
import { saveScreenshot, VIEWPORTS, type ViewportName } from '@svc/testing'
import type { Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { chromiumAvailable } from './browser'
import { type ChatInBrowser, lastAnswer, messageItems, startChatInBrowser } from './chat-in-browser'
import { type LiveStack, partsAvailable, startLiveStack } from './live-stack'

const available = chromiumAvailable() && partsAvailable()
const SUITE = 'chat'
const WIDTHS = Object.keys(VIEWPORTS) as ViewportName[]
const COMMAND = /svc slot|`/

describe.skipIf(!available)('the chat app’s face in Chromium at 1280×800 and 390×844', () => {
  let stack: LiveStack
  let app: ChatInBrowser

  beforeAll(async () => {
    stack = await startLiveStack({ slow: true, second: true, context: 4096 })
    app = await startChatInBrowser({ env: { SVC_CHAT_API_URL: stack.api.url } })
  }, 180_000)

  afterAll(async () => {
    await app?.[Symbol.asyncDispose]()
    await stack?.[Symbol.asyncDispose]()
  })

  /** A page of its own browser context at one of the two sizes. */
  const open = async (width: ViewportName, hash = ''): Promise<Page> => {
    const context = await app.browser.newContext({ viewport: VIEWPORTS[width] })
    const page = await context.newPage()
    await page.goto(`${app.chat.url}/${hash}`)
    return page
  }

  const conversationCount = async () =>
    ((await (await fetch(`${app.chat.url}/api/conversations`)).json()) as { conversations: unknown[] })
      .conversations.length

  it('reopens a long conversation at its latest message, with the message box on screen', async () => {
    // 16 turns, 32 messages, through the chat server and the real model.
    const made = await fetch(`${app.chat.url}/api/conversations`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'primary' }),
    })
    const { conversation } = (await made.json()) as { conversation: { id: string } }
    for (let turn = 1; turn <= 16; turn++) {
      const res = await fetch(`${app.chat.url}/api/conversations/${conversation.id}/messages`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          content: `Question ${turn}: ${'a line of words to fill the screen '.repeat(3)}`,
          model: 'primary',
        }),
      })
      expect(res.status).toBe(200)
      await res.text()
    }
    const saved = await app.saved(conversation.id)
    expect(saved.messages).toHaveLength(32)
    expect(saved.messages.filter((m) => m.status !== 'complete')).toEqual([])

    for (const width of WIDTHS) {
      const page = await open(width, `#/c/${conversation.id}`)
      const { height } = VIEWPORTS[width]
      const messages = messageItems(page)
      await expect.poll(() => messages.count(), { timeout: 15_000 }).toBe(32)
      const box = page.getByRole('textbox', { name: 'Message', exact: true })
      // The message box is whole on screen, and the page itself does not scroll.
      await expect.poll(async () => (await box.boundingBox())?.y ?? 99_999).toBeGreaterThan(0)
      const input = (await box.boundingBox())!
      expect(input.y + input.height, width).toBeLessThanOrEqual(height)
      expect(await page.evaluate(() => document.documentElement.scrollHeight <= innerHeight)).toBe(true)
      // It opened at the latest message: the last one is on screen, above the box; the first is not.
      const last = messages.last()
      await expect.poll(async () => (await last.boundingBox())?.y ?? -1).toBeGreaterThan(0)
      const lastBox = (await last.boundingBox())!
      expect(lastBox.y + lastBox.height, width).toBeLessThanOrEqual(input.y + 1)
      expect((await messages.first().boundingBox())!.y).toBeLessThan(0)
      expect(await page.getByRole('button', { name: 'Send' }).isVisible()).toBe(true)
      await saveScreenshot(page, SUITE, 'chat-long-conversation')

      // Rename / Export / Delete only once the conversation's "⋯" menu is open.
      for (const name of ['Rename', 'Delete']) {
        expect(await page.getByRole('button', { name, exact: true }).count()).toBe(0)
        expect(await page.getByRole('menuitem', { name }).count()).toBe(0)
      }
      expect(await page.getByText('Export Markdown').count()).toBe(0)
      await page.getByRole('button', { name: 'Conversation actions' }).click()
      for (const name of ['Rename', 'Export Markdown', 'Export JSON', 'Delete']) {
        expect(await page.getByRole('menuitem', { name }).isVisible(), name).toBe(true)
      }
      await saveScreenshot(page, SUITE, 'chat-conversation-menu')
      // A menu from the keyboard: the first item has the focus, ↓ moves on, Escape closes.
      const focused = () => page.evaluate(() => document.activeElement?.textContent ?? null)
      expect(await focused()).toBe('Rename')
      await page.keyboard.press('ArrowDown')
      expect(await focused()).toBe('Export Markdown')
      await page.keyboard.press('Escape')
      expect(await page.getByRole('menuitem', { name: 'Delete' }).count()).toBe(0)

      // Copy / Edit only in a message's own "⋯" menu.
      expect(await page.getByRole('button', { name: 'Copy' }).count()).toBe(0)
      expect(await page.getByRole('button', { name: 'Edit' }).count()).toBe(0)
      const question = messages.nth(30)
      await question.hover()
      await question.getByRole('button', { name: 'Message actions' }).click()
      expect(await question.getByRole('menuitem', { name: 'Copy' }).isVisible()).toBe(true)
      expect(await question.getByRole('menuitem', { name: 'Edit' }).isVisible()).toBe(true)
      await saveScreenshot(page, SUITE, 'chat-message-menu')
      await page.keyboard.press('Escape')
      await page.context().close()
    }
  }, 180_000)

  it('offers Stop while an answer streams; Stop ends it and keeps what arrived', async () => {
    for (const width of WIDTHS) {
      const page = await open(width)
      await page.getByLabel('Model').selectOption('slow')
      await page
        .getByRole('textbox', { name: 'Message', exact: true })
        .fill(`Tell me a long story (${width})`)
      await page.getByRole('button', { name: 'Send' }).click()
      const stop = page.getByRole('button', { name: 'Stop' })
      await stop.waitFor({ timeout: 20_000 })
      const answer = messageItems(page).last()
      await expect
        .poll(async () => ((await answer.textContent()) ?? '').replace('Thinking…', '').length, {
          timeout: 20_000,
        })
        .toBeGreaterThan('Assistant · slow'.length)
      if (width === 'phone') {
        // On a phone the answer soon overflows the list: the page still does not scroll, and Stop
        // stays on screen (the page used to grow under it).
        const list = page.getByRole('list', { name: 'Messages' })
        await expect
          .poll(() => list.evaluate((el) => el.scrollHeight > el.clientHeight), { timeout: 20_000 })
          .toBe(true)
        expect(await stop.isVisible()).toBe(true)
      }
      expect(await page.evaluate(() => document.documentElement.scrollHeight <= innerHeight)).toBe(true)
      const stopBox = (await stop.boundingBox())!
      expect(stopBox.y + stopBox.height).toBeLessThanOrEqual(VIEWPORTS[width].height)
      await saveScreenshot(page, SUITE, 'chat-streaming')
      await stop.click()
      await answer.getByText('Stopped.').waitFor({ timeout: 15_000 })
      await page.getByRole('button', { name: 'Send' }).waitFor()
      const id = /#\/c\/([\w-]+)$/.exec(page.url())![1]!
      const saved = await app.saved(id)
      expect(saved.messages.map((m) => m.status)).toEqual(['complete', 'stopped'])
      expect(saved.messages[1]!.content.length).toBeGreaterThan(0)
      await page.context().close()
    }
  }, 120_000)

  it('marks models loaded or not, offers Load (never a command) and loads on click; the answer comes', async () => {
    for (const width of WIDTHS) {
      const page = await open(width)
      const picker = page.getByLabel('Model')
      await picker.selectOption('primary')
      const option = (value: string) => picker.locator(`option[value="${value}"]`).textContent()
      expect(await option('primary')).toMatch(/^● primary.*— loaded$/)
      expect(await option('second')).toMatch(/^○ second.*— not loaded$/)

      await picker.selectOption('second')
      const send = page.getByRole('button', { name: 'Send' })
      // With a long unbroken word (a URL, a hash), which must wrap in its message (checked below).
      await page
        .getByRole('textbox', { name: 'Message', exact: true })
        .fill(`Hello, second ${'x'.repeat(120)}`)
      expect(await send.isDisabled()).toBe(true)
      const load = page.getByRole('button', { name: 'Load second' })
      await load.waitFor()
      const loadBox = (await load.boundingBox())!
      expect(loadBox.y + loadBox.height).toBeLessThanOrEqual(VIEWPORTS[width].height)
      expect(await page.getByText('second is not loaded.').isVisible()).toBe(true)
      expect(await page.locator('body').textContent()).not.toMatch(COMMAND)
      await saveScreenshot(page, SUITE, 'chat-model-not-loaded')

      await load.click()
      await expect.poll(() => send.isEnabled(), { timeout: 60_000 }).toBe(true)
      expect(await option('second')).toMatch(/^● second.*— loaded$/)
      await send.click()
      const answer = await lastAnswer(page)
      expect(((await answer.textContent()) ?? '').length).toBeGreaterThan('Assistant · second'.length)
      expect(await answer.getByText('Failed.').count()).toBe(0)
      const list = page.getByRole('list', { name: 'Messages' })
      expect(await list.evaluate((el) => el.scrollWidth <= el.clientWidth)).toBe(true)
      await saveScreenshot(page, SUITE, 'chat-model-loaded-answer')
      await page.context().close()

      // Unloaded again for the other width.
      const res = await fetch(`${stack.api.url}/api/slots/second/unload?wait=true`, { method: 'POST' })
      expect(res.status).toBe(200)
    }
  }, 240_000)

  it('refuses a 1.8 MB paste in MB before sending: the text stays, no conversation is made', async () => {
    for (const width of WIDTHS) {
      const page = await open(width)
      await page.getByLabel('Model').selectOption('primary')
      // No model here makes images: image mode is not offered.
      expect(await page.getByRole('radio', { name: 'Image' }).count()).toBe(0)
      const before = await conversationCount()
      const posted: string[] = []
      page.on('request', (r) => {
        if (r.method() === 'POST') posted.push(r.url())
      })
      const box = page.getByRole('textbox', { name: 'Message', exact: true })
      const pasted = 'x'.repeat(1_800_000)
      await box.fill(pasted)
      const notice = page.getByText(/This message is 1\.8 MB — the most one message can be is 1 MB/)
      await notice.waitFor()
      expect(await page.getByRole('button', { name: 'Send' }).isDisabled()).toBe(true)
      await box.press('Enter')
      await new Promise((r) => setTimeout(r, 500))
      expect(await box.evaluate((el: HTMLTextAreaElement) => el.value.length)).toBe(pasted.length)
      expect(posted).toEqual([])
      expect(await conversationCount()).toBe(before)
      expect(await page.getByRole('link', { name: 'New chat' }).count()).toBe(0)
      const input = (await box.boundingBox())!
      expect(input.y + input.height).toBeLessThanOrEqual(VIEWPORTS[width].height)
      await saveScreenshot(page, SUITE, 'chat-message-too-large')
      await page.context().close()
    }
  }, 120_000)

  it('says when a conversation is longer than the model’s context, and offers New chat', async () => {
    for (const width of WIDTHS) {
      const page = await open(width)
      await page.getByLabel('Model').selectOption('slow')
      // 6000 words, at least as many tokens; `slow` runs with 4096 (live-stack.ts).
      await page.getByRole('textbox', { name: 'Message', exact: true }).fill('word '.repeat(6000))
      await page.getByRole('button', { name: 'Send' }).click()
      const notice = page
        .getByRole('alert')
        .filter({ hasText: 'This conversation is longer than slow’s context.' })
      await notice.waitFor({ timeout: 30_000 })
      expect(await page.locator('body').textContent()).not.toMatch(COMMAND)
      // The failed answer stays in view, above the notice (the list kept its end when the notice came).
      const failed = messageItems(page).last()
      await expect
        .poll(async () => {
          const [end, top] = [await failed.boundingBox(), await notice.boundingBox()]
          return end && top ? end.y + end.height <= top.y + 1 : false
        })
        .toBe(true)
      const newChat = notice.getByRole('button', { name: 'New chat' })
      const box = (await newChat.boundingBox())!
      expect(box.y + box.height).toBeLessThanOrEqual(VIEWPORTS[width].height)
      await saveScreenshot(page, SUITE, 'chat-context-too-long')
      await newChat.click()
      await page.getByRole('heading', { name: 'New chat' }).waitFor()
      expect(await notice.count()).toBe(0)
      expect(page.url()).toMatch(/#\/$/)
      await page.context().close()
    }
  }, 120_000)

  it('shows no console errors', () => {
    expect(app.browser.errors).toEqual([])
  })
})
