/**
 * What one signed-in person can make the chat server hold: each request to the model carries only the
 * newest images of the conversation (seen by a hosted model, here svc's fake upstream, which records
 * the request svc sent it), and each person's stored files stay within `SVC_CHAT_QUOTA_MB`.
 */
import { readdir } from 'node:fs/promises'
import { join } from 'node:path'
import {
  type ApiProcess,
  encodePng,
  type FakeUpstream,
  startApiWithConfig,
  startFakeUpstream,
} from '@svc/testing'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type ChatProcess, startChatProcess } from './chat-process'

const MiB = 1024 * 1024
const PNG_SIGNATURE = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]

/** A 2×2 PNG whose grey level is `shade`, so each upload is a different picture. */
function picture(shade: number): Buffer {
  const row = [0, ...Array<number>(2 * 3).fill(shade)]
  return Buffer.from(encodePng({ width: 2, height: 2, scanlines: Buffer.from([...row, ...row]) }))
}

/** `size` bytes the server takes for a PNG (it reads the type from the signature). */
function pngOfSize(size: number): Buffer {
  const bytes = Buffer.alloc(size, 7)
  bytes.set(PNG_SIGNATURE)
  return bytes
}

interface ErrorBody {
  error: { code: string; message: string; type: string; param: string | null }
}

async function upload(chat: ChatProcess, bytes: Buffer): Promise<Response> {
  return fetch(`${chat.url}/api/files`, {
    method: 'POST',
    headers: { 'content-type': 'image/png' },
    body: new Uint8Array(bytes),
  })
}

async function newConversation(chat: ChatProcess): Promise<string> {
  const res = await fetch(`${chat.url}/api/conversations`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: '{}',
  })
  return ((await res.json()) as { conversation: { id: string } }).conversation.id
}

describe('bounds on what one person makes the chat server hold', () => {
  let cloud: FakeUpstream
  let api: ApiProcess

  beforeAll(async () => {
    cloud = await startFakeUpstream({})
    api = await startApiWithConfig({
      files: {
        'upstreams.toml': `[[upstream]]\nname = "cloud"\nbase_url = "${cloud.url}/v1"\nmodels = ["seer"]\n`,
      },
    })
  }, 60_000)
  afterAll(async () => {
    await api?.[Symbol.asyncDispose]()
    await cloud?.stop()
  })

  it('sends the model only the newest 8 images of a conversation, older ones as a note', async () => {
    await using chat = await startChatProcess({ env: { SVC_CHAT_API_URL: api.url } })
    const id = await newConversation(chat)
    const pictures = Array.from({ length: 10 }, (_, i) => picture(10 * i))
    for (const [i, png] of pictures.entries()) {
      const file = ((await (await upload(chat, png)).json()) as { file: { id: string } }).file.id
      const res = await fetch(`${chat.url}/api/conversations/${id}/messages`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ content: `picture ${i}`, model: 'cloud/seer', attachments: [file] }),
      })
      expect(res.status).toBe(200)
      expect(await res.text()).toContain('"status":"complete"')
    }
    const seen = (await (await fetch(`${cloud.url}/debug/last-request`)).json()) as { body: string }
    const body = JSON.parse(seen.body) as { messages: { role: string; content: unknown }[] }
    const users = body.messages.filter((m) => m.role === 'user')
    expect(users).toHaveLength(10)
    const dataUrl = (png: Buffer) => `data:image/png;base64,${png.toString('base64')}`
    for (const [i, user] of users.entries()) {
      const image =
        i < 2
          ? {
              type: 'text',
              text: '[an image omitted: only the newest images of a conversation are sent to the model]',
            }
          : { type: 'image_url', image_url: { url: dataUrl(pictures[i]!) } }
      expect([i, user.content]).toEqual([i, [{ type: 'text', text: `picture ${i}` }, image]])
    }
  }, 60_000)

  it('keeps each person within SVC_CHAT_QUOTA_MB: a file that would pass it is 413, and nothing is stored', async () => {
    await using chat = await startChatProcess({ env: { SVC_CHAT_API_URL: api.url, SVC_CHAT_QUOTA_MB: '1' } })
    const half = pngOfSize(MiB / 2)
    expect((await upload(chat, half)).status).toBe(201)
    expect((await upload(chat, half)).status).toBe(201)
    const over = await upload(chat, picture(1))
    expect(over.status).toBe(413)
    const error = ((await over.json()) as ErrorBody).error
    expect(error).toMatchObject({
      code: 'storage.quota_exceeded',
      type: 'invalid_request_error',
      param: 'file',
    })
    expect(error.message).toContain('your stored images take 1.0 MB of your 1.0 MB')
    expect(error.message).toContain('SVC_CHAT_QUOTA_MB')
    expect(await readdir(join(chat.stateDir, 'chat', 'files'))).toHaveLength(2)
    expect(chat.output()).toContain('"quotaMb":1')

    // No image is generated for a person with no room left: refused before the model runs.
    const id = await newConversation(chat)
    const generate = await fetch(`${chat.url}/api/conversations/${id}/images`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"prompt":"a lighthouse"}',
    })
    expect(generate.status).toBe(413)
    expect(((await generate.json()) as ErrorBody).error.code).toBe('storage.quota_exceeded')
    const conversation = (await (await fetch(`${chat.url}/api/conversations/${id}`)).json()) as {
      conversation: { messages: unknown[] }
    }
    expect(conversation.conversation.messages).toEqual([])

    // One file is still at most 10 MB, whatever the quota.
    await using roomy = await startChatProcess({ env: { SVC_CHAT_API_URL: api.url } })
    const big = await upload(roomy, pngOfSize(10 * MiB + 1))
    expect(big.status).toBe(413)
    expect(((await big.json()) as ErrorBody).error.code).toBe('request.too_large')
  }, 60_000)
})
