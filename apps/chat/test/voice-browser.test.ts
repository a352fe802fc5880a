/**
 * Voice mode in Chromium, end to end: Chromium's fake microphone plays a WAV that espeak-ng spoke;
 * the page streams it through the chat server's relay to svc's `/v1/realtime`, where svc's voice
 * detector ends the turn, real whisper-server transcribes it, real llama-server answers and espeak-ng
 * speaks the answer, which the page plays. The models have random weights, so the words are
 * gibberish: that something was heard, answered, scheduled for playback and saved is the point.
 */
import { writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { findEngine } from '@svc/engines'
import {
  type ApiProcess,
  chromiumAvailable,
  launchChromium,
  missingPart,
  saveScreenshot,
  speakWithPauses,
  startApiWithConfig,
  type TestBrowser,
  tempDirs,
  VIEWPORTS,
  writeTinyGguf,
  writeTinyWhisper,
} from '@svc/testing'
import type { Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Conversation } from '../src/server/store/types'
import { messageItems } from './chat-in-browser'
import { type ChatProcess, startChatProcess } from './chat-process'
import { buildFrontEnd } from './front-end'
import { load, partsAvailable } from './live-stack'

const whisper = Boolean(findEngine('whisper-server', process.env))
if (!whisper) missingPart('whisper-server', 'run ./scripts/setup.sh (svc engines build whisper-server)')
const available = chromiumAvailable() && whisper && partsAvailable({ speech: true })

const scratch = tempDirs('svc-chat-voice-')

/** A 16-bit mono WAV with `seconds` of silence added at its end (the fake microphone loops the file). */
function padWav(wav: Uint8Array, seconds: number, rate = 16_000): Uint8Array {
  const out = new Uint8Array(wav.length + seconds * rate * 2)
  out.set(wav)
  const view = new DataView(out.buffer)
  view.setUint32(4, out.length - 8, true)
  view.setUint32(40, out.length - 44, true)
  return out
}

/**
 * Installed before the page's scripts: counts the answer's audio as the page schedules it (each
 * AudioBufferSourceNode started, its rate and length) and as it finishes playing, and records each
 * state voice mode shows, in order.
 */
function instrument(): void {
  const w = window as unknown as {
    voiceAudio: { scheduled: number; ended: number; seconds: number; rates: number[] }
    voiceStates: string[]
  }
  w.voiceAudio = { scheduled: 0, ended: 0, seconds: 0, rates: [] }
  w.voiceStates = []
  const start = AudioBufferSourceNode.prototype.start
  AudioBufferSourceNode.prototype.start = function (this: AudioBufferSourceNode, ...args: number[]) {
    w.voiceAudio.scheduled++
    w.voiceAudio.seconds += this.buffer?.duration ?? 0
    w.voiceAudio.rates.push(this.buffer?.sampleRate ?? 0)
    this.addEventListener('ended', () => w.voiceAudio.ended++)
    return start.apply(this, args as [number?, number?, number?])
  }
  new MutationObserver(() => {
    const state = document.querySelector('[aria-label="Voice mode"] [role="status"]')?.textContent ?? 'off'
    if (w.voiceStates.at(-1) !== state) w.voiceStates.push(state)
  }).observe(document, { subtree: true, childList: true, characterData: true })
}

describe.skipIf(!available)('voice mode in the chat app', () => {
  let api: ApiProcess
  let chat: ChatProcess
  let chrome: TestBrowser

  beforeAll(async () => {
    const dir = await scratch.make()
    const spoken = await speakWithPauses(['Hello there, what is the weather like today?'], { leadMs: 800 })
    const wav = join(dir, 'question.wav')
    await writeFile(wav, padWav(spoken.wav, 90))
    api = await startApiWithConfig({
      slots: {
        primary: 'args = ["-c", "512", "-np", "1", "--threads", "1", "-n", "16"]\n',
        stt: 'args = ["-t", "1"]\n',
      },
    })
    const [chatModel, tiny] = await Promise.all([
      writeTinyGguf(join(dir, 'tiny-chat.gguf'), { role: 'chat' }),
      writeTinyWhisper(join(dir, 'tiny-whisper.bin')),
    ])
    await Promise.all([
      load(api, 'primary', chatModel.path),
      load(api, 'stt', tiny.path),
      load(api, 'tts', 'espeak-ng'),
    ])
    await buildFrontEnd()
    chat = await startChatProcess({ env: { SVC_CHAT_API_URL: api.url } })
    chrome = await launchChromium({
      autoplay: true,
      fakeMedia: true,
      args: [`--use-file-for-fake-audio-capture=${wav}`],
    })
  }, 240_000)

  afterAll(async () => {
    await chrome?.[Symbol.asyncDispose]()
    await chat?.[Symbol.asyncDispose]()
    await api?.[Symbol.asyncDispose]()
    await scratch.removeAll()
  })

  const saved = async (id: string) =>
    ((await (await fetch(`${chat.url}/api/conversations/${id}`)).json()) as { conversation: Conversation })
      .conversation

  /** Nothing of the page sticks out sideways, and `what` lies inside the window. */
  async function fits(page: Page, name: string): Promise<void> {
    const width = page.viewportSize()!.width
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(width)
    for (const locator of [
      page.getByRole('region', { name: 'Voice mode' }),
      page.getByRole('button', { name }),
    ]) {
      const box = (await locator.boundingBox())!
      expect(box.x).toBeGreaterThanOrEqual(0)
      expect(box.x + box.width).toBeLessThanOrEqual(width)
      expect(box.y + box.height).toBeLessThanOrEqual(page.viewportSize()!.height)
    }
  }

  for (const viewport of ['desktop', 'phone'] as const) {
    it(`hears a spoken question, answers aloud and keeps the turn (${viewport})`, async () => {
      const context = await chrome.browser.newContext({ viewport: VIEWPORTS[viewport] })
      await context.addInitScript(instrument)
      const errors: string[] = []
      context.on('weberror', (error) => errors.push(error.error().message))
      const page = await context.newPage()
      await page.goto(chat.url)
      const talk = page.getByRole('button', { name: 'Talk', exact: true })
      await talk.waitFor({ timeout: 20_000 })
      expect(await talk.isVisible()).toBe(true)
      await talk.click()

      const panel = page.getByRole('region', { name: 'Voice mode' })
      const state = panel.getByRole('status')
      await state.getByText('Listening…').waitFor({ timeout: 20_000 })
      expect(await page.getByRole('button', { name: 'Send' }).isDisabled()).toBe(true)
      await fits(page, 'Stop voice')
      // saveScreenshot adds the width to the name: chat-voice-listening-1280, -390.
      await saveScreenshot(page, 'chat', 'chat-voice-listening')

      await state
        .getByText('Speaking…')
        .waitFor({ timeout: 150_000 })
        .catch(async (error: Error) => {
          const seen = await page.evaluate(() => (window as unknown as { voiceStates: string[] }).voiceStates)
          throw new Error(`${error.message}\nstates: ${seen.join(' → ')}\n${api.output().slice(-3000)}`)
        })
      await fits(page, 'Stop voice')
      await saveScreenshot(page, 'chat', 'chat-voice-speaking')

      // The answer's audio was scheduled at 24 kHz, and plays.
      const audio = () =>
        page.evaluate(
          () =>
            (
              window as unknown as {
                voiceAudio: { scheduled: number; ended: number; seconds: number; rates: number[] }
              }
            ).voiceAudio,
        )
      await expect.poll(async () => (await audio()).ended, { timeout: 30_000 }).toBeGreaterThan(0)
      const played = await audio()
      expect(played.scheduled).toBeGreaterThan(0)
      expect(played.seconds).toBeGreaterThan(0.1)
      expect(new Set(played.rates)).toEqual(new Set([24_000]))

      // The turn went listening → thinking → speaking, in that order.
      const states = await page.evaluate(() => (window as unknown as { voiceStates: string[] }).voiceStates)
      const at = (s: string) => states.indexOf(s)
      expect(at('Listening…'), states.join(' → ')).toBeGreaterThanOrEqual(0)
      expect(at('Thinking…'), states.join(' → ')).toBeGreaterThan(at('Listening…'))
      expect(at('Speaking…'), states.join(' → ')).toBeGreaterThan(at('Thinking…'))

      // What was heard shows in the panel, and the spoken turn lands in the conversation.
      await panel.getByText('You:').waitFor({ timeout: 30_000 })
      const messages = messageItems(page)
      await expect.poll(() => messages.count(), { timeout: 60_000 }).toBeGreaterThanOrEqual(2)
      const id = page.url().split('#/c/')[1]!
      // svc's detector may split the question at a pause and the second half cut the first answer
      // short (saved, Stopped): some turn holds words heard and an answer's words.
      const { messages: kept } = await saved(id)
      const said = (role: string) => kept.filter((m) => m.role === role && m.content.trim() !== '')
      expect(said('user').length, JSON.stringify(kept)).toBeGreaterThan(0)
      expect(said('assistant').length, JSON.stringify(kept)).toBeGreaterThan(0)

      // Stop voice: the panel goes, Talk and the message box are back, the conversation is free again.
      await page.getByRole('button', { name: 'Stop voice' }).click()
      await panel.waitFor({ state: 'detached', timeout: 10_000 })
      await talk.waitFor()
      await expect
        .poll(async () => {
          const list = (await (await fetch(`${chat.url}/api/conversations`)).json()) as {
            conversations: { id: string; running: boolean }[]
          }
          return list.conversations.find((c) => c.id === id)?.running
        })
        .toBe(false)
      expect(errors).toEqual([])
      await context.close()
    }, 240_000)
  }
})
