/**
 * Presets per model (`<config>/presets.toml`, docs/models.md "Presets") end to end, against real
 * llama-server serving a tiny GGUF (it never emits EOS, so every answer runs to its token limit and
 * the count says what limit the engine got):
 *
 * - `force` reaches the engine on every surface (chat, Responses, Messages, Ollama `/api/chat`),
 *   whatever the client sent; `defaults` yield to the client; `strip` removes a field (the engine then
 *   falls back to the slot's `-n 4`);
 * - switching between a preset and its variants never reloads (the upstream's pid stays); a preset
 *   with its own `ctx_size` is another load, and runs with it (`-c` on its command line);
 * - an edit applies without a restart; a broken edit keeps the last good presets and says why;
 * - aliases and variants are listed in `/v1/models` and `/api/tags`.
 */
import { readFile, rm, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { type ApiProcess, startApiWithConfig, writeTinyGguf } from '@svc/testing'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { call, cli, llamaServerAvailable, loadOk, type SlotBody, waitForSlot } from './live'

const available = llamaServerAvailable()
// `-n 4`: what the engine generates when a request carries no limit (a stripped max_tokens).
// `max_loaded = 1`: a preset of another load swaps primary (no spare slot beside it), as tested here.
const SLOT =
  'args = ["-c", "256", "-np", "1", "--threads", "1", "-n", "4"]\nrestart = "no"\nload_on_request = true\nmax_loaded = 1\n'

const PRESETS = `
[presets.tiny]
model = "tiny-chat"
force = { max_tokens = 3 }

[presets."tiny:five"]
model = "tiny"
defaults = { max_tokens = 5 }

[presets."tiny:free"]
model = "tiny"
strip = ["max_tokens"]

[presets.roomy]
model = "tiny-chat"
ctx_size = 384
`

interface PresetsBody {
  presets: { name: string; load_as: string }[]
  problem: string | null
}

const hello = [{ role: 'user', content: 'Hello' }]

describe.skipIf(!available)('presets per model, through svc to llama-server', () => {
  let api: ApiProcess
  let presetsFile: string

  /** The completion tokens of a chat answer for `model` (the engine's count). */
  async function chatTokens(model: string, extra: Record<string, unknown> = {}): Promise<number> {
    const r = await call<{ model: string; usage: { completion_tokens: number } }>(
      api,
      '/v1/chat/completions',
      {
        method: 'POST',
        json: { model, messages: hello, ...extra },
      },
    )
    if (r.status !== 200) throw new Error(`chat with ${model}: ${r.status} ${JSON.stringify(r.body)}`)
    expect(r.body.model).toBe(model) // the client's name comes back, not the file's
    return r.body.usage.completion_tokens
  }

  async function primary(): Promise<SlotBody> {
    return (await call<SlotBody>(api, '/api/slots/primary')).body
  }

  async function presets(): Promise<PresetsBody> {
    return (await call<PresetsBody>(api, '/api/presets')).body
  }

  /** Polls until `check` passes (the watcher applies an edit after its debounce). */
  async function eventually<T>(check: () => Promise<T>, timeoutMs = 10_000): Promise<T> {
    const deadline = Date.now() + timeoutMs
    for (;;) {
      try {
        return await check()
      } catch (error) {
        if (Date.now() > deadline) throw error
        await new Promise((r) => setTimeout(r, 150))
      }
    }
  }

  beforeAll(async () => {
    api = await startApiWithConfig({ slots: { primary: SLOT } })
    const gguf = await writeTinyGguf(join(api.stateDir, 'tiny-chat.gguf'), { role: 'chat' })
    // Loading the file registers its ref (tiny-chat); presets name that ref.
    await loadOk(api, 'primary', gguf.path)
    presetsFile = join(api.configDir, 'presets.toml')
    await writeFile(presetsFile, PRESETS)
    await eventually(async () => expect((await presets()).presets.map((p) => p.name)).toContain('roomy'))
  }, 90_000)

  afterAll(async () => {
    await api?.[Symbol.asyncDispose]()
  })

  it('forces max_tokens on chat whatever the client sent, in any spelling', async () => {
    expect(await chatTokens('tiny', { max_tokens: 50 })).toBe(3)
    expect(await chatTokens('tiny', { max_completion_tokens: 40 })).toBe(3)
    expect(await chatTokens('tiny')).toBe(3)
    // The ref itself has no preset: the client's limit holds.
    expect(await chatTokens('tiny-chat', { max_tokens: 6 })).toBe(6)
  })

  it('forces it on the Responses API as max_output_tokens', async () => {
    const r = await call<{ model: string; usage: { output_tokens: number } }>(api, '/v1/responses', {
      method: 'POST',
      json: { model: 'tiny', input: 'Hello', max_output_tokens: 50 },
    })
    expect(r.status, JSON.stringify(r.body)).toBe(200)
    expect(r.body.usage.output_tokens).toBe(3)
  })

  it('forces it on Anthropic Messages', async () => {
    const r = await call<{ usage: { output_tokens: number } }>(api, '/v1/messages', {
      method: 'POST',
      headers: { 'anthropic-version': '2023-06-01' },
      json: { model: 'tiny', max_tokens: 50, messages: hello },
    })
    expect(r.status, JSON.stringify(r.body)).toBe(200)
    expect(r.body.usage.output_tokens).toBe(3)
  })

  it("forces it on the Ollama API, over the client's num_predict", async () => {
    const r = await call<{ model: string; eval_count: number; done_reason: string }>(api, '/api/chat', {
      method: 'POST',
      json: { model: 'tiny', messages: hello, stream: false, options: { num_predict: 50 } },
    })
    expect(r.status, JSON.stringify(r.body)).toBe(200)
    expect(r.body).toMatchObject({ model: 'tiny', eval_count: 3, done_reason: 'length' })
  })

  it("lets the client's value win over a default", async () => {
    expect(await chatTokens('tiny:five', { max_tokens: 2 })).toBe(2)
    expect(await chatTokens('tiny:five')).toBe(5)
  })

  it("strips a field: the engine never sees the client's max_tokens and uses its own -n 4", async () => {
    expect(await chatTokens('tiny:free', { max_tokens: 2 })).toBe(4)
  })

  it('switches between a preset and its variants without a reload (same upstream pid)', async () => {
    const before = await primary()
    expect(before.model).toBe('tiny-chat')
    for (const model of ['tiny', 'tiny:five', 'tiny:free', 'tiny-chat', 'tiny:five']) await chatTokens(model)
    const after = await primary()
    expect(after.upstream?.pid).toBe(before.upstream?.pid)
    expect(after.restarts).toBe(before.restarts)
  })

  it('loads a preset with its own ctx_size as another load, running with it', async () => {
    const before = await primary()
    expect(await chatTokens('roomy', { max_tokens: 2 })).toBe(2)
    const roomy = await waitForSlot(api, 'primary', (s) => s.model === 'roomy' && s.state !== 'starting')
    expect(roomy.upstream?.pid).not.toBe(before.upstream?.pid)
    const argv = (await readFile(`/proc/${roomy.upstream!.pid}/cmdline`, 'utf8')).split('\0')
    expect(argv.slice(-3, -1)).toEqual(['-c', '384']) // after the slot's own -c 256: the one that counts
    // Back to the plain preset: the ref's own engine again.
    expect(await chatTokens('tiny', { max_tokens: 9 })).toBe(3)
    expect((await primary()).model).toBe('tiny-chat')
  })

  it('lists aliases and variants in /v1/models and /api/tags with capabilities and context length', async () => {
    const v1 = await call<{ data: { id: string; capabilities: string[]; context_length?: number }[] }>(
      api,
      '/v1/models',
    )
    const byId = new Map(v1.body.data.map((m) => [m.id, m]))
    for (const id of ['tiny', 'tiny:five', 'tiny:free', 'roomy'])
      expect(byId.get(id)?.capabilities).toContain('chat')
    expect(byId.get('roomy')?.context_length).toBe(384)
    expect(byId.get('tiny:five')?.context_length).toBe(512) // the file's own training context
    const shown = await call<{ capabilities: string[] }>(api, '/api/show', {
      method: 'POST',
      json: { model: 'tiny:five' },
    })
    expect(shown.status).toBe(200)
    expect(shown.body.capabilities).toContain('completion')
    const tags = await call<{ models: { name: string }[] }>(api, '/api/tags')
    expect(tags.body.models.map((m) => m.name)).toEqual(
      expect.arrayContaining(['tiny:latest', 'tiny:five', 'tiny:free', 'roomy:latest']),
    )
  })

  it('applies an edit of presets.toml to the next requests, without a restart', async () => {
    await writeFile(presetsFile, PRESETS.replace('force = { max_tokens = 3 }', 'force = { max_tokens = 2 }'))
    await eventually(async () => expect(await chatTokens('tiny', { max_tokens: 50 })).toBe(2))
  })

  it('keeps the last good presets when an edit is broken, and says why', async () => {
    const broken = PRESETS.replace('ctx_size = 384', 'ctx_size = "big"')
    await writeFile(presetsFile, broken)
    const seen = await eventually(async () => {
      const body = await presets()
      expect(body.problem).not.toBeNull()
      return body
    })
    expect(seen.problem).toBe(
      `${presetsFile}: preset "roomy": ctx_size: expected a positive integer, got "big"`,
    )
    expect(await chatTokens('tiny', { max_tokens: 50 })).toBe(2) // the last good file's force
    const listed = await cli(api, ['presets'])
    expect(listed.code).toBe(1)
    expect(listed.stdout).toMatch(/tiny:five +tiny-chat \(variant of tiny\) +tiny-chat/)
    expect(listed.stderr).toContain('preset "roomy": ctx_size: expected a positive integer')
    // A variant whose base does not exist is refused the same way.
    await writeFile(presetsFile, `${PRESETS}\n[presets."tiny:typo"]\nmodel = "tinyy"\n`)
    await eventually(async () =>
      expect((await presets()).problem).toMatch(/preset "tiny:typo": model: .*got "tinyy"/),
    )
    expect(await chatTokens('tiny:five')).toBe(5)
    // Fixed: it applies, and the problem is gone.
    await writeFile(presetsFile, PRESETS)
    await eventually(async () => expect((await presets()).problem).toBeNull())
    expect(await chatTokens('tiny', { max_tokens: 50 })).toBe(3)
  })

  it('has no presets once the file is removed', async () => {
    await rm(presetsFile)
    await eventually(async () => expect((await presets()).presets).toEqual([]))
    const r = await call(api, '/v1/chat/completions', {
      method: 'POST',
      json: { model: 'tiny:five', messages: hello },
    })
    expect(r.status).toBe(404)
  })
})
