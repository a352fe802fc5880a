import { execFile } from 'node:child_process'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { describe, expect, it } from 'vitest'
import { writeFlmProgram } from '../src/flm/flm-program'
import { startFlmStandIn } from '../src/flm/flm-server'

const post = (url: string, body: unknown) =>
  fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) })
const chat = (model?: string, content = 'hello npu') => ({
  ...(model ? { model } : {}),
  messages: [{ role: 'user', content }],
})

describe('the FLM stand-in', () => {
  it('answers /api/tags, /api/ps, /v1/models and has no /health; routes match the full target', async () => {
    await using flm = await startFlmStandIn({ tag: 'qwen3' })
    const tags = (await (await fetch(`${flm.url}/api/tags`)).json()) as { models: { name: string }[] }
    expect(tags.models.map((m) => m.name)).toContain('qwen3:4b')
    expect(await (await fetch(`${flm.url}/api/ps`)).json()).toEqual({
      models: [expect.objectContaining({ name: 'qwen3:0.6b' })], // a tag without size: the first size
    })
    const models = (await (await fetch(`${flm.url}/v1/models`)).json()) as { data: { id: string }[] }
    expect(models.data.map((m) => m.id)).not.toContain('whisper-v3:turbo')
    expect(models.data.map((m) => m.id)).not.toContain('embed-gemma:300m')
    const health = await fetch(`${flm.url}/health`)
    expect([health.status, await health.json()]).toEqual([404, { error: 'Not Found' }])
    expect((await fetch(`${flm.url}/v1/models?x=1`)).status).toBe(404)
  })

  it('switches the loaded model when a request names a different tag', async () => {
    await using flm = await startFlmStandIn({ tag: 'qwen3:4b' })
    await post(`${flm.url}/v1/chat/completions`, chat('qwen3:4b'))
    expect(flm.state.switches).toEqual([])
    const res = await post(`${flm.url}/v1/chat/completions`, chat('llama3.2:1b'))
    const body = (await res.json()) as {
      model: string
      choices: { message: { content: string } }[]
      usage: object
    }
    expect(body.model).toBe('llama3.2:1b')
    expect(body.choices[0]?.message.content).toContain('hello npu')
    expect(body.usage).toHaveProperty('decoding_speed_tps')
    expect(flm.state).toMatchObject({ loaded: 'llama3.2:1b', switches: ['llama3.2:1b'] })
  })

  it('reports most errors as HTTP 200 with {"error": string}; Max length is a 400 with an object', async () => {
    await using flm = await startFlmStandIn({ tag: 'qwen3:4b', ctxLen: 512 })
    const unknown = await post(`${flm.url}/v1/chat/completions`, chat('nope:1b'))
    expect([unknown.status, await unknown.json()]).toEqual([200, { error: 'Model not found: nope:1b' }])
    const noMessages = await post(`${flm.url}/v1/chat/completions`, { model: 'qwen3:4b' })
    expect([noMessages.status, await noMessages.json()]).toEqual([200, { error: 'messages is required' }])
    const bad = await fetch(`${flm.url}/v1/chat/completions`, { method: 'POST', body: '{nope' })
    expect([bad.status, await bad.json()]).toEqual([400, { error: 'Invalid JSON' }])
    const long = await post(`${flm.url}/v1/chat/completions`, chat('qwen3:4b', 'x'.repeat(4000)))
    expect([long.status, await long.json()]).toEqual([
      400,
      { error: { message: 'Max length reached!', type: 'model_error', code: 400 } },
    ])
  })

  it('streams chat as SSE ending with [DONE]', async () => {
    await using flm = await startFlmStandIn({ tag: 'qwen3:4b' })
    const res = await post(`${flm.url}/v1/chat/completions`, { ...chat('qwen3:4b'), stream: true })
    expect(res.headers.get('content-type')).toBe('text/event-stream')
    const events = (await res.text()).split('\n\n').filter(Boolean)
    expect(events.at(-1)).toBe('data: [DONE]')
    expect(JSON.parse(events.at(-2)?.slice(6) ?? '{}')).toMatchObject({
      choices: [{ finish_reason: 'stop' }],
    })
  })

  it('answers embeddings and transcriptions only when started with them, with null otherwise', async () => {
    await using bare = await startFlmStandIn({ tag: 'qwen3:4b' })
    const none = await post(`${bare.url}/v1/embeddings`, { input: 'a' })
    expect([none.status, await none.text()]).toEqual([200, 'null'])
    await using flm = await startFlmStandIn({ asr: true, embed: true })
    const emb = (await (await post(`${flm.url}/v1/embeddings`, { input: ['a', 'b'] })).json()) as {
      data: { embedding: number[] }[]
    }
    expect(emb.data.map((d) => d.embedding.length)).toEqual([768, 768])
    expect((await post(`${flm.url}/v1/embeddings`, { input: [1, 2, 3] })).status).toBe(500)
    const form = new FormData()
    form.set('file', new Blob([new Uint8Array(1000)]), 'a.wav')
    form.set('model', 'whisper-1')
    form.set('response_format', 'srt') // ignored: FLM always answers {model, text}
    const stt = await fetch(`${flm.url}/v1/audio/transcriptions`, { method: 'POST', body: form })
    expect(await stt.json()).toEqual({ model: 'whisper-v3:turbo', text: 'stand-in transcript of 1000 bytes' })
    const chatWithoutLlm = await post(`${flm.url}/v1/chat/completions`, chat())
    expect(await chatWithoutLlm.json()).toEqual({ error: 'No model loaded; name one in "model"' })
  })

  it('runs one NPU job at a time and answers 503 when the queue is full', async () => {
    await using flm = await startFlmStandIn({ tag: 'qwen3:4b', qLen: 1, jobDelayMs: 200 })
    const replies = await Promise.all(
      [1, 2, 3].map(() => post(`${flm.url}/v1/chat/completions`, chat('qwen3:4b'))),
    )
    const statuses = replies.map((r) => r.status).sort()
    expect(statuses).toEqual([200, 200, 503])
  })

  it('runs as an flm program whose boolean options take a value', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'svc-flm-bin-'))
    try {
      const flm = await writeFlmProgram(dir)
      const exec = promisify(execFile)
      expect(JSON.parse((await exec(flm, ['version', '--json'])).stdout)).toHaveProperty('version')
      await expect(exec(flm, ['serve', 'qwen3:4b', '--asr', '--embed', '1'])).rejects.toMatchObject({
        code: 2,
        stderr: expect.stringContaining('--asr needs a value'),
      })
      await expect(exec(flm, ['serve', 'nope:9b', '--port', '0'])).rejects.toMatchObject({
        stderr: expect.stringContaining('Invalid model tag: nope:9b'),
      })
    } finally {
      await rm(dir, { recursive: true, force: true })
    }
  })
})
