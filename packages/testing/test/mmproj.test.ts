import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  buildTinyMmproj,
  encodePng,
  postJson,
  renderImage,
  requireLlamaServer,
  startLlamaServer,
  writeTinyGguf,
  writeTinyMmproj,
} from '../src/index'

const llamaServer = requireLlamaServer()

describe('buildTinyMmproj', () => {
  it('writes a GGUF of six tensors, a few tens of KB, with the projector keys clip.cpp requires', () => {
    const { bytes, info } = buildTinyMmproj()
    expect(bytes.subarray(0, 4).toString('latin1')).toBe('GGUF')
    expect(Number(bytes.readBigUInt64LE(8))).toBe(6)
    expect(bytes.length % 32).toBe(0)
    expect(bytes.length).toBeLessThan(200_000)
    for (const key of ['clip.projector_type', 'clip.has_vision_encoder', 'clip.vision.image_mean']) {
      expect(bytes.includes(Buffer.from(key))).toBe(true)
    }
    expect(info).toMatchObject({ nEmbdText: 64, imageSize: 32, patchSize: 8, imageTokens: 16 })
  })

  it('is deterministic for a seed and rejects an image size that does not split into patches', () => {
    expect(buildTinyMmproj({ seed: 2 }).bytes.equals(buildTinyMmproj({ seed: 2 }).bytes)).toBe(true)
    expect(buildTinyMmproj({ seed: 2 }).bytes.equals(buildTinyMmproj({ seed: 3 }).bytes)).toBe(false)
    expect(() => buildTinyMmproj({ imageSize: 30, patchSize: 8 })).toThrow(/multiple/)
  })
})

describe.skipIf(!llamaServer)('the tiny projector in the real llama-server', () => {
  let dir = ''
  const png = encodePng(renderImage(7n, 0, 48, 40))
  const dataUrl = `data:image/png;base64,${png.toString('base64')}`

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'svc-mmproj-'))
  })
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true })
  })

  const promptTokens = async (url: string, content: unknown) => {
    const res = await postJson(`${url}/v1/chat/completions`, {
      model: 'tiny',
      messages: [{ role: 'user', content }],
      max_tokens: 3,
    })
    const body = (await res.json()) as { usage?: { prompt_tokens: number }; choices?: unknown[] }
    expect(res.status, JSON.stringify(body)).toBe(200)
    expect(body.choices).toHaveLength(1)
    return body.usage!.prompt_tokens
  }

  it('loads it with --mmproj and feeds an image as imageTokens embeddings', async () => {
    const model = await writeTinyGguf(join(dir, 'chat.gguf'))
    const mmproj = await writeTinyMmproj(join(dir, 'mmproj.gguf'))
    await using server = await startLlamaServer({ model: model.path, extraArgs: ['--mmproj', mmproj.path] })
    const props = (await (await fetch(`${server.url}/props`)).json()) as { modalities: { vision: boolean } }
    expect(props.modalities.vision).toBe(true)

    const text = [{ type: 'text', text: 'What is in the picture?' }]
    const plain = await promptTokens(server.url, text)
    const seeing = await promptTokens(server.url, [
      ...text,
      { type: 'image_url', image_url: { url: dataUrl } },
    ])
    expect(seeing - plain).toBe(mmproj.imageTokens)
  })

  it('is refused by llama-server when its output width is not the model’s n_embd', async () => {
    const model = await writeTinyGguf(join(dir, 'chat-64.gguf'))
    const narrow = await writeTinyMmproj(join(dir, 'mmproj-32.gguf'), { nEmbdText: 32 })
    await expect(
      startLlamaServer({ model: model.path, extraArgs: ['--mmproj', narrow.path], timeoutMs: 15_000 }),
    ).rejects.toThrow(/mismatch between text model|mmproj|exited/i)
  })
})
