/**
 * Issues 16 + 17: a remote slot's upstream loads its own files, so svc cannot know whether it sees
 * images. A remote chat slot's `/v1/models` entries say `capabilities: null` (unknown, like a hosted
 * ref; a remote embedding slot keeps `["embeddings"]`) and a chat
 * with an image goes to the remote, which judges it — here a real llama-server started with the tiny
 * model and the tiny projector, which answers.
 */
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import {
  type ApiProcess,
  encodePng,
  type LlamaServer,
  renderImage,
  startApiWithConfig,
  startLlamaServer,
  writeTinyGguf,
  writeTinyMmproj,
} from '@svc/testing'
import type OpenAI from 'openai'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { openaiClient } from './chat-requests'
import { llamaServerAvailable, waitForSlot } from './live'

const available = llamaServerAvailable()

describe.skipIf(!available)('images to a remote slot', () => {
  let dir: string
  let remote: LlamaServer
  let embedder: LlamaServer
  let api: ApiProcess
  let client: OpenAI

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'svc-remote-vision-'))
    const gguf = await writeTinyGguf(join(dir, 'far-seeing.gguf'), { role: 'chat' })
    const mmproj = await writeTinyMmproj(join(dir, 'far-mmproj.gguf'), { nEmbdText: gguf.nEmbd })
    remote = await startLlamaServer({
      model: gguf.path,
      alias: 'far-seeing',
      extraArgs: ['--mmproj', mmproj.path],
    })
    const embedding = await writeTinyGguf(join(dir, 'far-embed.gguf'), { role: 'embed' })
    embedder = await startLlamaServer({ model: embedding.path, alias: 'far-embed', role: 'embed' })
    api = await startApiWithConfig({
      slots: {
        far: `enabled = true\nprovider = "llm"\nruntime = "remote"\nurl = "${remote.url}"\n`,
        farembed: `enabled = true\nprovider = "llm"\nrole = "embed"\nruntime = "remote"\nurl = "${embedder.url}"\n`,
      },
    })
    client = openaiClient(api)
    await waitForSlot(api, 'far', (s) => s.state === 'ready', 30_000)
    await waitForSlot(api, 'farembed', (s) => s.state === 'ready', 30_000)
  }, 60_000)
  afterAll(async () => {
    await api?.[Symbol.asyncDispose]()
    await remote?.stop()
    await embedder?.stop()
    await rm(dir, { recursive: true, force: true })
  })

  it('says a remote chat slot’s capabilities are unknown (null), for the slot and its model', async () => {
    const models = await client.models.list()
    const byId = new Map(models.data.map((m) => [m.id, m as unknown as { capabilities: unknown }]))
    expect(byId.get('far')?.capabilities).toBeNull()
    expect(byId.get('far-seeing')?.capabilities).toBeNull()
    // A local slot keeps what svc knows of its role, and so does a remote one that does not chat
    // (only whether a chat model sees images is unknown).
    expect(byId.get('primary')?.capabilities).toEqual(['chat'])
    expect(byId.get('farembed')?.capabilities).toEqual(['embeddings'])
    expect(byId.get('far-embed')?.capabilities).toEqual(['embeddings'])
  })

  it('passes a chat with an image on to the remote, which sees it', async () => {
    const png = encodePng(renderImage(5n, 0, 32, 32)).toString('base64')
    const r = await client.chat.completions.create({
      model: 'far',
      max_tokens: 3,
      messages: [
        {
          role: 'user',
          content: [
            { type: 'text', text: 'What is this?' },
            { type: 'image_url', image_url: { url: `data:image/png;base64,${png}` } },
          ],
        },
      ],
    })
    expect(r.choices[0]?.message.role).toBe('assistant')
    expect(r.usage?.prompt_tokens).toBeGreaterThan(0)
  })
})
