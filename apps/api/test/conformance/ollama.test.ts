/**
 * The Ollama API table (ollama.table.ts) against svc with the real llama-server and with the
 * wrong-answering stand-in behind it, and the official `ollama` client over the same kinds of
 * answers (streamed and not), each checked against the client's own types (ollama-shapes.ts).
 * One svc process: `primary` (tiny chat GGUF), `embed` (tiny embedding GGUF), `spare` (loads
 * `tiny-spare` on request, `unload_after = "1h"`), `seeing` (a tiny chat GGUF with its vision
 * projector), `stt` and `tts` empty, and `wrong` (a remote slot
 * on the stand-in); `presets.toml` makes `knock` an alias of `tiny-chat` (`presetAlias`).
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import {
  type ApiProcess,
  startApiWithConfig,
  startWrongEngine,
  type WrongEngine,
  writeTinyGguf,
  writeTinyMmproj,
} from '@svc/testing'
import { Ollama } from 'ollama'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { call, LIGHT_ARGS, llamaServerAvailable, loadOk, requestLoad, waitForSlot } from '../live'
import { type ConformanceTarget, runConformance } from './conformance'
import { OLLAMA_TABLE } from './ollama.table'
import {
  ChatResponseSchema,
  EmbedResponseSchema,
  GenerateResponseSchema,
  PsResponseSchema,
  parsed,
  ShowResponseSchema,
  StreamPartSchema,
  TagsResponseSchema,
} from './ollama-shapes'

const available = llamaServerAvailable()
const REAL_ARGS = LIGHT_ARGS.replace('"256"', '"1024"')

let dir: string | undefined
let api: ApiProcess | undefined
let engine: WrongEngine | undefined

beforeAll(async () => {
  engine = await startWrongEngine()
  dir = await mkdtemp(join(tmpdir(), 'svc-ollama-conformance-'))
  const slots: Record<string, string> = {
    wrong: `enabled = true\nprovider = "llm"\nbackend = "cpu"\nruntime = "remote"\nurl = "${engine.url}"\n`,
  }
  if (available) {
    slots.primary = REAL_ARGS
    slots.embed = LIGHT_ARGS
    slots.seeing = `provider = "llm"\n${LIGHT_ARGS}`
    slots.spare = `provider = "llm"\nload_on_request = true\naccepts = ["tiny-spare"]\nunload_after = "1h"\n${LIGHT_ARGS}`
  }
  api = await startApiWithConfig({ slots })
  const loads: Promise<unknown>[] = [waitForSlot(api, 'wrong', (s) => s.state === 'ready', 30_000)]
  if (available) {
    const [chat, embed, spare, seeing] = await Promise.all([
      writeTinyGguf(join(dir, 'tiny-chat.gguf'), { role: 'chat', contextLength: 1024 }),
      writeTinyGguf(join(dir, 'tiny-embed.gguf'), { role: 'embed', nEmbd: 96, nHead: 4 }),
      writeTinyGguf(join(dir, 'tiny-spare.gguf'), { role: 'chat' }),
      writeTinyGguf(join(dir, 'tiny-seeing.gguf'), { role: 'chat' }),
    ])
    const mmproj = await writeTinyMmproj(join(dir, 'tiny-mmproj.gguf'), { nEmbdText: seeing.nEmbd })
    loads.push(loadOk(api, 'primary', chat.path), loadOk(api, 'embed', embed.path))
    loads.push(requestLoad(api, 'seeing', { model: seeing.path, mmproj: mmproj.path }))
    // `tiny-spare` becomes a ref svc knows, then leaves the slot: the table's rows load it again.
    loads.push(
      loadOk(api, 'spare', spare.path).then(() => call(api!, '/api/slots/spare/unload', { method: 'POST' })),
    )
  }
  await Promise.all(loads)
  if (available) await presetAlias(api)
}, 120_000)

/**
 * `knock`, a preset alias of `tiny-chat` (request fields only: it shares its engine), written once
 * svc knows that ref (a preset naming an unknown model is refused) and read by the file watcher.
 */
async function presetAlias(svc: ApiProcess): Promise<void> {
  await writeFile(
    join(svc.configDir, 'presets.toml'),
    '[presets."knock"]\nmodel = "tiny-chat"\nforce = { max_tokens = 2 }\n',
  )
  const deadline = Date.now() + 15_000
  for (;;) {
    const presets = (await call<{ presets: { name: string }[] }>(svc, '/api/presets')).body
    if (presets.presets.some((p) => p.name === 'knock')) return
    if (Date.now() > deadline) throw new Error(`the preset did not apply: ${JSON.stringify(presets)}`)
    await new Promise((r) => setTimeout(r, 100))
  }
}

afterAll(async () => {
  await api?.[Symbol.asyncDispose]()
  await engine?.close()
  if (dir) await rm(dir, { recursive: true, force: true })
})

function target(kind: 'llama-server' | 'wrong-engine'): ConformanceTarget {
  if (!api || !engine) throw new Error('the targets did not start (see beforeAll)')
  return kind === 'llama-server'
    ? { kind, url: api.url, model: 'primary' }
    : { kind, url: api.url, model: 'wrong', received: () => engine!.received() }
}

describe.skipIf(!available)('Ollama API conformance, real llama-server', () => {
  runConformance(OLLAMA_TABLE, 'llama-server', () => target('llama-server'))
})

describe('Ollama API conformance, the wrong-answering stand-in', () => {
  runConformance(OLLAMA_TABLE, 'wrong-engine', () => target('wrong-engine'))
})

describe('the official ollama client reads every kind of answer, types included', () => {
  for (const kind of ['llama-server', 'wrong-engine'] as const) {
    it.skipIf(kind === 'llama-server' && !available)(`against ${kind}`, async () => {
      const { url, model } = target(kind)
      const client = new Ollama({ host: url })
      const options = { num_predict: 3 }
      parsed(
        ChatResponseSchema,
        await client.chat({ model, messages: [{ role: 'user', content: 'Hi' }], options }),
      )
      const parts = await client.chat({
        model,
        messages: [{ role: 'user', content: 'Hi' }],
        options,
        stream: true,
      })
      const seen: unknown[] = []
      for await (const part of parts) seen.push(part)
      for (const part of seen.slice(0, -1)) parsed(StreamPartSchema, part)
      parsed(ChatResponseSchema, seen.at(-1))
      parsed(GenerateResponseSchema, await client.generate({ model, prompt: 'Hi', options }))
      const gen: unknown[] = []
      for await (const part of await client.generate({ model, prompt: 'Hi', options, stream: true }))
        gen.push(part)
      parsed(GenerateResponseSchema, gen.at(-1))
      // A load, as clients send it to warm a model up.
      expect(parsed(GenerateResponseSchema, await client.generate({ model, prompt: '' })).done_reason).toBe(
        'load',
      )
      // Streamed, the load is still one object: the client's stream gives it as its only part.
      const loads: unknown[] = []
      for await (const part of await client.chat({ model, messages: [], stream: true })) loads.push(part)
      expect(loads).toHaveLength(1)
      expect(parsed(ChatResponseSchema, loads[0]).done_reason).toBe('load')
      parsed(ShowResponseSchema, await client.show({ model }))
      parsed(TagsResponseSchema, await client.list())
      parsed(PsResponseSchema, await client.ps())
      if (kind === 'llama-server') {
        parsed(EmbedResponseSchema, await client.embed({ model: 'embed', input: ['a', 'b'] }))
        const unload = await client.chat({ model: 'tiny-spare', messages: [], keep_alive: 0 })
        expect(parsed(ChatResponseSchema, unload).done_reason).toBe('unload')
      }
    })
  }
})
