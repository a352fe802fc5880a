/**
 * End to end in a real browser: headless Chromium against the chat server, the real API,
 * real llama-server upstreams (tiny random-weight models: the words are gibberish, the behaviour is
 * real) and espeak-ng for read-aloud.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { chromiumAvailable } from './browser'
import { type ChatInBrowser, lastAnswer, messageAction, startChatInBrowser } from './chat-in-browser'
import { type LiveStack, partsAvailable, startLiveStack, tokensPredicted, upstreamBusy } from './live-stack'

const available = chromiumAvailable() && partsAvailable({ speech: true })

describe.skipIf(!available)('the chat app in Chromium with svc and llama-server', () => {
  let stack: LiveStack
  let app: ChatInBrowser

  beforeAll(async () => {
    stack = await startLiveStack({ speech: true, slow: true })
    app = await startChatInBrowser({ env: { SVC_CHAT_API_URL: stack.api.url } })
  }, 180_000)

  afterAll(async () => {
    await app?.[Symbol.asyncDispose]()
    await stack?.[Symbol.asyncDispose]()
  })

  const idOf = (url: string) => /#\/c\/([\w-]+)$/.exec(url)?.[1] ?? ''

  it('streams an answer, Stop ends the generation upstream, and a reload shows the conversation kept', async () => {
    const { page } = await app.compose('slow', 'Tell me a long story')
    const before = await tokensPredicted(stack.api, 'slow')
    await page.getByRole('button', { name: 'Send' }).click()

    // Streaming: part of the answer is on screen while Stop is still offered.
    const answer = page.getByRole('listitem').filter({ hasText: 'Assistant' }).last()
    const stop = page.getByRole('button', { name: 'Stop' })
    await stop.waitFor()
    // Some of the answer is on screen (no longer the "Thinking…" placeholder) while Stop is offered.
    const shown = async () => {
      const text = (await answer.textContent()) ?? ''
      return !text.includes('Thinking…') && text.length > 'Assistant · slow'.length
    }
    await expect.poll(shown, { timeout: 20_000 }).toBe(true)
    expect(await stop.isVisible()).toBe(true)
    await stop.click()

    await answer.getByText('Stopped.').waitFor()
    // llama-server itself stopped, far short of the ~4000 tokens the context allows.
    // It sees the closed connection at its next write and cancels in its task queue: polled, with
    // room for a busy machine (the token count below tells a stop from an answer run to its end).
    await expect.poll(() => upstreamBusy(stack.api, 'slow'), { timeout: 15_000 }).toBe(false)
    await new Promise((r) => setTimeout(r, 300))
    expect((await tokensPredicted(stack.api, 'slow')) - before).toBeLessThan(1000)

    const id = idOf(page.url())
    const stored = await app.saved(id)
    expect(stored.title).toBe('Tell me a long story')
    expect(stored.messages.map((m) => [m.role, m.status])).toEqual([
      ['user', 'complete'],
      ['assistant', 'stopped'],
    ])
    // What was on screen when Stop was pressed is kept (and perhaps a little more that was in flight).
    expect(stored.messages[1]!.content.length).toBeGreaterThan(0)

    await page.reload()
    await page.getByRole('heading', { name: 'Tell me a long story' }).waitFor()
    await page.getByRole('listitem').filter({ hasText: 'Assistant' }).getByText('Stopped.').waitFor()
    expect(await page.getByRole('link', { name: 'Tell me a long story' }).getAttribute('aria-current')).toBe(
      'page',
    )
    await page.close()
  }, 90_000)

  it('answers, regenerates the last answer, and edits an earlier message to continue from it', async () => {
    const { page, composer } = await app.compose('primary', 'Hello there')
    await composer.press('Enter')
    await lastAnswer(page)
    const id = idOf(page.url())
    const first = await app.saved(id)
    expect(first.messages.map((m) => [m.role, m.status])).toEqual([
      ['user', 'complete'],
      ['assistant', 'complete'],
    ])
    expect(first.messages[1]!.content).not.toBe('')

    await messageAction(await lastAnswer(page), 'Regenerate')
    await expect
      .poll(async () => (await app.saved(id)).messages[1]?.id, { timeout: 30_000 })
      .not.toBe(first.messages[1]!.id)
    await expect
      .poll(async () => (await app.saved(id)).messages[1]?.status, { timeout: 30_000 })
      .toBe('complete')
    await lastAnswer(page)
    const regenerated = await app.saved(id)
    expect(regenerated.messages).toHaveLength(2)
    expect(regenerated.messages[1]!.id).not.toBe(first.messages[1]!.id)
    expect(regenerated.messages[1]!.status).toBe('complete')

    const question = page
      .getByRole('list', { name: 'Messages' })
      .getByRole('listitem')
      .filter({ hasText: 'You' })
      .first()
    await messageAction(question, 'Edit')
    await page.getByLabel('Edit message').fill('Edited question')
    await page.getByRole('button', { name: 'Save and send' }).click()
    await page.getByRole('list', { name: 'Messages' }).getByText('Edited question', { exact: true }).waitFor()
    await expect
      .poll(async () => (await app.saved(id)).messages.map((m) => m.status).join(), { timeout: 30_000 })
      .toBe('complete,complete')
    await lastAnswer(page)
    // The earlier question is gone from the conversation (the title keeps its first words).
    const messages = page.getByRole('list', { name: 'Messages' })
    expect(await messages.getByText('Hello there', { exact: true }).count()).toBe(0)
    const edited = await app.saved(id)
    expect(edited.messages.map((m) => [m.role, m.content === 'Edited question', m.status])).toEqual([
      ['user', true, 'complete'],
      ['assistant', false, 'complete'],
    ])
    expect(edited.messages[1]!.id).not.toBe(regenerated.messages[1]!.id)

    await page.reload()
    await page.getByRole('list', { name: 'Messages' }).getByText('Edited question', { exact: true }).waitFor()
    await page.close()
  }, 90_000)

  it('reads an answer aloud: the audio from espeak-ng plays', async () => {
    const { page } = await app.compose('primary', 'Say something')
    await page.getByRole('button', { name: 'Send' }).click()
    const answer = await lastAnswer(page)
    const speech = page.waitForResponse((r) => r.url().endsWith('/api/audio/speech'))
    await messageAction(answer, 'Read aloud')
    const res = await speech
    expect(res.status()).toBe(200)
    expect(res.headers()['content-type']).toBe('audio/mpeg')
    const audio = page.getByLabel('Read-aloud audio')
    await audio.waitFor()
    // Played: the clock moved (or it already reached the end), and it has a real duration.
    await expect
      .poll(() => audio.evaluate((a: HTMLAudioElement) => a.currentTime > 0 || a.ended), { timeout: 15_000 })
      .toBe(true)
    expect(await audio.evaluate((a: HTMLAudioElement) => a.duration)).toBeGreaterThan(0.2)
    await page.close()
  }, 60_000)

  it('shows no console errors', () => {
    expect(app.browser.errors).toEqual([])
  })
})
