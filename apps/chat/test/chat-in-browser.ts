/**
 * The chat app as a person uses it: its front end built from this checkout, the chat server started
 * against a test API, and Chromium to open it in. Shared by the browser suites.
 */
import type { BrowserContextOptions, Locator, Page } from 'playwright-core'
import type { Conversation } from '../src/server/store/types'
import { type Browser, launchBrowser } from './browser'
import { type ChatProcess, startChatProcess } from './chat-process'
import { buildFrontEnd } from './front-end'

export interface ChatInBrowser extends AsyncDisposable {
  chat: ChatProcess
  browser: Browser
  /**
   * Opens the chat app in a new page of the first context, picks `model` and types `message` into
   * the composer without sending it; `composer` is that textbox.
   */
  compose(model: string, message: string): Promise<{ page: Page; composer: Locator }>
  /** A conversation as the server has it (what a reload would show). */
  saved(id: string): Promise<Conversation>
}

/**
 * The conversation's messages on `page`: the list's own items, not those of a list inside a message
 * (a random-weight model's answer, rendered as Markdown, sometimes holds one).
 */
export function messageItems(page: Page): Locator {
  return page.getByRole('list', { name: 'Messages' }).locator(':scope > li')
}

/**
 * Waits until the last answer on `page` is written (its "⋯" menu is offered only then) and returns
 * that message.
 */
export async function lastAnswer(page: Page, timeout = 30_000): Promise<Locator> {
  const answer = messageItems(page).filter({ hasText: 'Assistant' }).last()
  await answer.getByRole('button', { name: 'Message actions' }).waitFor({ timeout })
  return answer
}

/** Opens the "⋯" menu of `message` and chooses `item` (Copy, Edit, Regenerate, Read aloud). */
export async function messageAction(message: Locator, item: string): Promise<void> {
  await message.getByRole('button', { name: 'Message actions' }).click()
  await message.getByRole('menuitem', { name: item }).click()
}

/** Opens the open conversation's "⋯" menu and chooses `item` (Rename, Export …, Delete). */
export async function conversationAction(page: Page, item: string): Promise<void> {
  await page.getByRole('button', { name: 'Conversation actions' }).click()
  await page.getByRole('menuitem', { name: item }).click()
}

/**
 * Builds the front end, starts the chat server with `env` (`SVC_CHAT_API_URL` and what else the test
 * needs) and launches the browser, its first context made with `context`. Dispose closes the browser,
 * then stops the server.
 */
export async function startChatInBrowser(options: {
  env: Record<string, string>
  context?: BrowserContextOptions
}): Promise<ChatInBrowser> {
  await buildFrontEnd()
  const chat = await startChatProcess({ env: options.env })
  const browser = await launchBrowser(options.context).catch(async (error: unknown) => {
    await chat[Symbol.asyncDispose]()
    throw error
  })
  return {
    chat,
    browser,
    async compose(model, message) {
      const page = await browser.context.newPage()
      await page.goto(chat.url)
      await page.getByLabel('Model').selectOption(model)
      const composer = page.getByRole('textbox', { name: 'Message', exact: true })
      await composer.fill(message)
      return { page, composer }
    },
    async saved(id) {
      const res = await fetch(`${chat.url}/api/conversations/${id}`)
      return ((await res.json()) as { conversation: Conversation }).conversation
    },
    async [Symbol.asyncDispose]() {
      await browser[Symbol.asyncDispose]()
      await chat[Symbol.asyncDispose]()
    },
  }
}
