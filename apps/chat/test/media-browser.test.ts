/**
 * The chat app's media in Chromium: the image-generation mode (through svc to the ComfyUI stand-in:
 * ComfyUI cannot run here), image attachments (sent on to a hosted model, here svc's fake upstream,
 * which records what it received), and voice input (Chromium's fake microphone, recorded, sent
 * through svc to the real whisper-server with a tiny random-weight model).
 */
import { join } from 'node:path'
import { findEngine } from '@svc/engines'
import {
  type ApiProcess,
  type ComfyStandIn,
  encodePng,
  type FakeUpstream,
  missingPart,
  saveScreenshot,
  startApiWithConfig,
  startComfyStandIn,
  startFakeUpstream,
  tempDirs,
  VIEWPORTS,
  writeTinyWhisper,
} from '@svc/testing'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { chromiumAvailable } from './browser'
import { type ChatInBrowser, conversationAction, lastAnswer, startChatInBrowser } from './chat-in-browser'
import { load } from './live-stack'

const whisper = Boolean(findEngine('whisper-server', process.env))
if (!whisper) missingPart('whisper-server', 'run ./scripts/setup.sh (svc engines build whisper-server)')
const available = chromiumAvailable() && whisper
const SDXL = 'sdxl-turbo/sd_xl_turbo_1.0_fp16.safetensors'

const scratch = tempDirs('svc-chat-media-')

describe.skipIf(!available)('images, attachments and voice in the chat app', () => {
  let comfy: ComfyStandIn
  let cloud: FakeUpstream
  let api: ApiProcess
  let app: ChatInBrowser

  beforeAll(async () => {
    const dir = await scratch.make()
    ;[comfy, cloud] = await Promise.all([startComfyStandIn({ checkpoints: [SDXL] }), startFakeUpstream({})])
    api = await startApiWithConfig({
      files: {
        'upstreams.toml': `[[upstream]]\nname = "cloud"\nbase_url = "${cloud.url}/v1"\nmodels = ["seer"]\n`,
      },
      slots: { img: `runtime = "remote"\nurl = "${comfy.url}"\n`, stt: 'args = ["-t", "1"]\n' },
    })
    const tiny = await writeTinyWhisper(join(dir, 'tiny-whisper.bin'))
    await Promise.all([load(api, 'img', 'sdxl-turbo'), load(api, 'stt', tiny.path)])
    app = await startChatInBrowser({ env: { SVC_CHAT_API_URL: api.url } })
  }, 180_000)

  const conversations = async () =>
    ((await (await fetch(`${app.chat.url}/api/conversations`)).json()) as { conversations: unknown[] })
      .conversations.length

  afterAll(async () => {
    await app?.[Symbol.asyncDispose]()
    await api?.[Symbol.asyncDispose]()
    await cloud?.stop()
    await comfy?.close()
    await scratch.removeAll()
  })

  it('generates an image in image mode and shows it inline, kept after a reload and gone with the conversation', async () => {
    const page = await app.browser.context.newPage()
    await page.goto(app.chat.url)
    await page.getByRole('radio', { name: 'Image', exact: true }).check()
    await page.getByLabel('Size').selectOption('512x512')
    await page.getByRole('textbox', { name: 'Image prompt' }).fill('a lighthouse at dusk')
    await page.getByRole('button', { name: 'Generate' }).click()
    const image = page.getByRole('img', { name: 'Generated image' })
    await image.waitFor({ timeout: 30_000 })
    await expect
      .poll(() => image.evaluate((i: HTMLImageElement) => i.naturalWidth), { timeout: 10_000 })
      .toBe(512)
    expect(String(comfy.prompts.at(-1)?.raw)).toContain('a lighthouse at dusk')

    await page.reload()
    await page.getByRole('img', { name: 'Generated image' }).waitFor()
    const id = page.url().split('#/c/')[1]!
    const conversation = await app.saved(id)
    expect(conversation.title).toBe('Image: a lighthouse at dusk')
    const file = conversation.messages[1]!.attachments[0]!.file
    expect((await fetch(`${app.chat.url}/api/files/${file}`)).status).toBe(200)

    await conversationAction(page, 'Delete')
    await page.getByRole('dialog').getByRole('button', { name: 'Delete' }).click()
    await page.getByText('No conversations yet.').waitFor()
    expect((await fetch(`${app.chat.url}/api/files/${file}`)).status).toBe(404)
    await page.close()
  }, 60_000)

  it('keeps no conversation for a failed generation: the prompt stays, the reason shows, Generate is not covered', async () => {
    comfy.configure({ failExecution: 'out of memory on the GPU' })
    try {
      for (const width of ['desktop', 'phone'] as const) {
        const context = await app.browser.newContext({ viewport: VIEWPORTS[width] })
        const page = await context.newPage()
        await page.goto(app.chat.url)
        const before = await conversations()
        await page.getByRole('radio', { name: 'Image', exact: true }).check()
        const prompt = page.getByRole('textbox', { name: 'Image prompt' })
        await prompt.fill('a castle that will not be drawn')
        const generate = page.getByRole('button', { name: 'Generate' })
        await generate.click()
        await page.getByText(/The image could not be made/).waitFor({ timeout: 30_000 })
        expect(await prompt.inputValue()).toBe('a castle that will not be drawn')
        expect(await conversations()).toBe(before)
        expect(await page.getByRole('link', { name: /Image: a castle/ }).count()).toBe(0)
        expect(await page.getByRole('heading', { name: 'New chat' }).isVisible()).toBe(true)
        // Nothing (a toast) lies over Generate: the point at its centre is the button itself.
        const box = (await generate.boundingBox())!
        const hit = await page.evaluate(
          ([x, y]) => document.elementFromPoint(x!, y!)?.closest('button')?.textContent ?? null,
          [box.x + box.width / 2, box.y + box.height / 2],
        )
        expect(hit).toBe('Generate')
        await saveScreenshot(page, 'chat', 'chat-image-failed')
        await context.close()
      }
    } finally {
      comfy.configure({ failExecution: false })
    }
  }, 90_000)

  it('attaches an image for a model that may see it, and sends it on as a data URL', async () => {
    const page = await app.browser.context.newPage()
    // A slow file server: the answer is shown before the attachment has loaded, as on a busy box.
    await page.route('**/api/files/**', async (route) => {
      await new Promise((r) => setTimeout(r, 300))
      await route.continue()
    })
    await page.goto(app.chat.url)
    await page.getByLabel('Model').selectOption('cloud/seer')
    // A 4×4 grey PNG: each scanline is a filter byte (0) and 4 RGB pixels.
    const row = [0, ...Array<number>(4 * 3).fill(200)]
    const png = encodePng({ width: 4, height: 4, scanlines: Buffer.from([...row, ...row, ...row, ...row]) })
    await page
      .getByLabel('Attach image')
      .setInputFiles({ name: 'dot.png', mimeType: 'image/png', buffer: Buffer.from(png) })
    await page.getByRole('list', { name: 'Attachments' }).getByText('dot.png').waitFor()
    await page.getByRole('textbox', { name: 'Message', exact: true }).fill('What is in this picture?')
    await page.getByRole('button', { name: 'Send' }).click()
    await lastAnswer(page)
    const shown = page.getByRole('img', { name: 'Attached image' })
    // The answer can come before the browser has fetched the attachment: wait for the decode (it
    // rejects, failing the test, where the file does not load), then read the size.
    expect(await shown.evaluate((i: HTMLImageElement) => i.decode().then(() => i.naturalWidth))).toBe(4)
    const seen = (await (await fetch(`${cloud.url}/debug/last-request`)).json()) as { body: string }
    const body = JSON.parse(seen.body) as { model: string; messages: { role: string; content: unknown }[] }
    const user = body.messages.at(-1)!
    expect(user.content).toEqual([
      { type: 'text', text: 'What is in this picture?' },
      {
        type: 'image_url',
        image_url: { url: `data:image/png;base64,${Buffer.from(png).toString('base64')}` },
      },
    ])
    await page.close()
  }, 60_000)

  it('records from the microphone and puts the transcript in the message box', async () => {
    const page = await app.browser.context.newPage()
    await page.goto(app.chat.url)
    await page.getByRole('button', { name: 'Record' }).click()
    await page.getByRole('button', { name: 'Stop recording' }).waitFor()
    await new Promise((r) => setTimeout(r, 1_500))
    const transcribed = page.waitForResponse((r) => r.url().endsWith('/api/audio/transcriptions'))
    await page.getByRole('button', { name: 'Stop recording' }).click()
    const res = await transcribed
    expect(res.status()).toBe(200)
    const { text } = (await res.json()) as { text: string }
    // Random weights hear gibberish (or nothing); whatever came back is what the box shows.
    const box = page.getByRole('textbox', { name: 'Message', exact: true })
    if (text) await expect.poll(() => box.inputValue(), { timeout: 10_000 }).toBe(text)
    else await page.getByText('Nothing was heard.').waitFor()
    await page.getByRole('button', { name: 'Record' }).waitFor()
    await page.close()
  }, 60_000)

  it('shows no console errors', () => {
    expect(app.browser.errors).toEqual([])
  })
})
