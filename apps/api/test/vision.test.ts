/**
 * Vision: the official `openai` package sends chats with image parts through svc to the
 * real llama-server started with the tiny model and the tiny projector (`--mmproj`); images for a
 * model without a projector are refused at the edge; an http image URL is fetched by llama-server,
 * never by svc.
 */
import { mkdtemp } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import {
  type ApiProcess,
  encodePng,
  type FileServer,
  renderImage,
  serveFiles,
  startApiWithConfig,
  type TinyMmproj,
  writeTinyGguf,
  writeTinyMmproj,
} from '@svc/testing'
import type OpenAI from 'openai'
import { BadRequestError, InternalServerError } from 'openai'
import type { ChatCompletionContentPart } from 'openai/resources/chat/completions'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { openaiClient } from './chat-requests'
import { call, cli, LIGHT_ARGS, llamaServerAvailable, loadOk, requestLoad, waitForSlot } from './live'

const available = llamaServerAvailable()

describe.skipIf(!available)('chat with images through svc', () => {
  let api: ApiProcess
  let client: OpenAI
  let mmproj: TinyMmproj
  let images: FileServer
  const png = encodePng(renderImage(11n, 0, 40, 40))
  const question: ChatCompletionContentPart = { type: 'text', text: 'What is in this picture?' }
  const image = (url: string): ChatCompletionContentPart => ({ type: 'image_url', image_url: { url } })
  const dataUrl = `data:image/png;base64,${png.toString('base64')}`

  beforeAll(async () => {
    const dir = await mkdtemp(join(tmpdir(), 'svc-vision-'))
    const [seeing] = await Promise.all([
      writeTinyGguf(join(dir, 'tiny-seeing.gguf')),
      writeTinyGguf(join(dir, 'tiny-text.gguf'), { seed: 2 }),
      writeTinyGguf(join(dir, 'tiny-auto.gguf'), { seed: 3 }),
    ])
    mmproj = await writeTinyMmproj(join(dir, 'tiny-mmproj.gguf'), { nEmbdText: seeing.nEmbd })
    images = await serveFiles({ '/cat.png': png })
    api = await startApiWithConfig({
      slots: {
        primary: LIGHT_ARGS,
        text: `provider = "llm"\n${LIGHT_ARGS}`,
        // A slot file names the projector beside its default model; it loads when the API starts.
        auto: `provider = "llm"\nenabled = true\n${LIGHT_ARGS}[model]\ndefault = "${join(dir, 'tiny-auto.gguf')}"\nmmproj = "${mmproj.path}"\n`,
      },
    })
    // The CLI, as a user types it: the projector by path next to the model by path.
    const loaded = await cli(api, [
      'slot',
      'load',
      'primary',
      '--model',
      seeing.path,
      '--mmproj',
      mmproj.path,
    ])
    expect(loaded.code, loaded.stderr + loaded.stdout).toBe(0)
    await loadOk(api, 'text', join(dir, 'tiny-text.gguf'))
    client = openaiClient(api)
  }, 90_000)

  afterAll(async () => {
    await api?.[Symbol.asyncDispose]()
    await images?.[Symbol.asyncDispose]()
  })

  const promptTokens = async (model: string, content: ChatCompletionContentPart[]) => {
    const r = await client.chat.completions.create({
      model,
      messages: [{ role: 'user', content }],
      max_tokens: 4,
    })
    expect(r.choices[0]?.message.role).toBe('assistant')
    expect(r.choices[0]?.finish_reason).toBe('length')
    return r.usage!.prompt_tokens
  }

  it('says which models see images in /v1/models and /api/models', async () => {
    const models = await client.models.list()
    const byId = new Map(models.data.map((m) => [m.id, m as unknown as { capabilities: string[] }]))
    expect(byId.get('primary')?.capabilities).toEqual(['chat', 'vision'])
    expect(byId.get('tiny-seeing')?.capabilities).toEqual(['chat', 'vision'])
    expect(byId.get('text')?.capabilities).toEqual(['chat'])
    const listed = await call<{ models: Record<string, unknown>[] }>(api, '/api/models')
    expect(listed.body.models.find((m) => m.id === 'tiny-seeing')).toMatchObject({
      capabilities: ['chat', 'vision'],
      present: true,
      mmproj: { present: true, size: mmproj.bytes, path: mmproj.path },
    })
    const vision = listed.body.models.filter((m) => (m.capabilities as string[]).includes('vision'))
    expect(vision.map((m) => m.id)).toEqual(
      expect.arrayContaining(['qwen2-vl-2b-instruct-q4_k_m', 'smolvlm-500m-instruct-q8_0']),
    )
  })

  it('loads a slot file’s default model with the projector it names', async () => {
    const slot = await waitForSlot(api, 'auto', (s) => s.state === 'ready' || s.state === 'idle', 60_000)
    expect(slot.model).toBe('tiny-auto')
    const plain = await promptTokens('auto', [question])
    expect((await promptTokens('auto', [question, image(dataUrl)])) - plain).toBe(mmproj.imageTokens)
    // A load that names no model is the slot file's load: its default with the projector.
    await call(api, '/api/slots/auto/unload?wait=true', { method: 'POST' })
    const reloaded = await requestLoad(api, 'auto', {})
    expect(reloaded).toMatchObject({ status: 200, body: { model: 'tiny-auto' } })
    expect((await promptTokens('auto', [question, image(dataUrl)])) - plain).toBe(mmproj.imageTokens)
  })

  it('answers a chat with a base64 image, which costs the projector’s image tokens', async () => {
    const plain = await promptTokens('primary', [question])
    const seeing = await promptTokens('primary', [question, image(dataUrl)])
    expect(seeing - plain).toBe(mmproj.imageTokens)
  })

  it('streams a chat with an image', async () => {
    const stream = await client.chat.completions.create({
      model: 'tiny-seeing',
      messages: [{ role: 'user', content: [question, image(dataUrl)] }],
      max_tokens: 4,
      stream: true,
    })
    const finish: (string | null | undefined)[] = []
    for await (const chunk of stream) finish.push(chunk.choices[0]?.finish_reason)
    expect(finish.at(-1)).toBe('length')
  })

  it('leaves an http image URL to llama-server, which fetches it itself', async () => {
    const before = images.requests.length
    const plain = await promptTokens('primary', [question])
    const seeing = await promptTokens('primary', [question, image(`${images.url}/cat.png`)])
    expect(seeing - plain).toBe(mmproj.imageTokens)
    const fetched = images.requests.slice(before)
    expect(fetched).toHaveLength(1)
    expect(fetched[0]).toMatchObject({ path: '/cat.png', userAgent: expect.stringMatching(/^llama-cpp\//) })
  })

  it('passes an image URL llama-server cannot fetch on as its error (502), still without fetching it', async () => {
    const before = images.requests.length
    const missing = client.chat.completions.create({
      model: 'primary',
      messages: [{ role: 'user', content: [question, image(`${images.url}/missing.png`)] }],
      max_tokens: 2,
    })
    await expect(missing).rejects.toBeInstanceOf(InternalServerError)
    await expect(missing).rejects.toMatchObject({
      status: 502,
      error: { code: 'upstream.error', message: expect.stringContaining('Failed to download image') },
    })
    expect(images.requests.slice(before).map((r) => r.userAgent)).toEqual([
      expect.stringMatching(/^llama-cpp\//),
    ])
  })

  it('refuses an image for a model without a projector with 400 naming messages', async () => {
    const attempt = client.chat.completions.create({
      model: 'text',
      messages: [{ role: 'user', content: [question, image(dataUrl)] }],
      max_tokens: 2,
    })
    await expect(attempt).rejects.toBeInstanceOf(BadRequestError)
    await expect(attempt).rejects.toMatchObject({
      status: 400,
      param: 'messages',
      error: { code: 'request.invalid', message: expect.stringContaining('does not accept images') },
    })
    // Text still goes through to the same model.
    expect(await promptTokens('text', [question])).toBeGreaterThan(0)
  })
})
