import { describe, expect, it } from 'vitest'
import { checkPresetModels, parsePresets } from './parse-presets'
import type { PresetTable } from './preset-table'

const FILE = '/etc/svc/presets.toml'

function table(text: string): PresetTable {
  const result = parsePresets(text, FILE)
  if (!result.ok) throw new Error(result.problem)
  return result.table
}

function problem(text: string): string {
  const result = parsePresets(text, FILE)
  if (result.ok) throw new Error('the file was accepted')
  return result.problem
}

const ISSUE_EXAMPLE = `
[presets."qwen3-8b"]
model = "hf.co/unsloth/Qwen3-8B-GGUF:Q4_K_M"
ctx_size = 16384
args = ["--flash-attn", "on"]
defaults = { temperature = 0.6, top_p = 0.95 }
force = { chat_template_kwargs = { enable_thinking = false } }
strip = ["logit_bias"]

[presets."qwen3-8b:nothink"]
model = "qwen3-8b"
force = { chat_template_kwargs = { enable_thinking = false }, max_tokens = 2048 }
`

describe('parsePresets', () => {
  it('reads the example of the issue: an alias of a Hub name and a variant that shares its engine', () => {
    const t = table(ISSUE_EXAMPLE)
    expect(t.resolveAlias('qwen3-8b')).toBe('qwen3-8b')
    expect(t.resolveAlias('qwen3-8b:nothink')).toBe('qwen3-8b')
    expect(t.loadTarget('qwen3-8b:nothink')).toEqual({
      id: 'qwen3-8b',
      model: 'hf.co/unsloth/Qwen3-8B-GGUF:Q4_K_M',
    })
    expect(t.engine('qwen3-8b:nothink', 'llm')).toEqual({ args: ['--flash-attn', 'on'], ctxSize: 16384 })
    expect(t.get('qwen3-8b:nothink')?.variantOf).toBe('qwen3-8b')
    expect(t.contextSize('qwen3-8b:nothink')).toBe(16384)
  })

  it('loads an alias that only adds request fields to a ref under the ref, so both share one engine', () => {
    const t = table('[presets.fast]\nmodel = "tiny-chat"\nforce = { max_tokens = 3 }\n')
    expect(t.resolveAlias('fast')).toBe('tiny-chat')
    expect(t.loadTarget('fast')).toEqual({ id: 'tiny-chat', model: 'tiny-chat' })
  })

  it('loads an alias that changes the engine under its own name', () => {
    const t = table('[presets.long]\nmodel = "tiny-chat"\nctx_size = 4096\n')
    expect(t.resolveAlias('long')).toBe('long')
    expect(t.loadTarget('long')).toEqual({ id: 'long', model: 'tiny-chat' })
    expect(t.engine('long', 'llm')).toEqual({ args: [], ctxSize: 4096 })
  })

  it("gives a ref's own preset (no model) to every load of that ref", () => {
    const t = table('[presets."tiny-chat"]\nargs = ["--flash-attn", "on"]\n')
    expect(t.loadTarget('tiny-chat')).toEqual({ id: 'tiny-chat', model: 'tiny-chat' })
    expect(t.engine('tiny-chat', 'llm').args).toEqual(['--flash-attn', 'on'])
  })

  it("puts * args before a preset's and gives them to llm models only", () => {
    const t = table(
      '[presets."*"]\nargs = ["-fa", "off"]\nctx_size = 512\n[presets.a]\nmodel = "m"\nargs = ["-fa", "on"]\n',
    )
    expect(t.engine('a', 'llm')).toEqual({ args: ['-fa', 'off', '-fa', 'on'], ctxSize: 512 })
    expect(t.engine('other-ref', 'llm')).toEqual({ args: ['-fa', 'off'], ctxSize: 512 })
    expect(t.engine('whisper-ref', 'stt')).toEqual({ args: [] })
  })

  it('composes request fields * < preset < variant, the most specific deciding each field', () => {
    const t = table(`
[presets."*"]
defaults = { temperature = 0.7 }
strip = ["logit_bias"]
[presets.base]
model = "m"
force = { max_tokens = 3, chat_template_kwargs = { enable_thinking = false } }
[presets."base:long"]
model = "base"
defaults = { max_tokens = 50 }
force = { chat_template_kwargs = { clear_thinking = true } }
`)
    expect(Object.fromEntries(t.requestFields('base:long')!)).toEqual({
      logit_bias: { kind: 'strip' },
      temperature: { kind: 'default', value: 0.7 },
      max_tokens: { kind: 'default', value: 50 },
      chat_template_kwargs: { kind: 'force', value: { enable_thinking: false, clear_thinking: true } },
    })
    // Any other name gets `*`'s alone.
    expect([...t.requestFields('some-ref')!.keys()]).toEqual(['logit_bias', 'temperature'])
  })

  it('has nothing to do for names without a preset when there is no * with fields', () => {
    const t = table('[presets."*"]\nargs = ["-fa", "on"]\n[presets.a]\nmodel = "m"\n')
    expect(t.requestFields('other')).toBeUndefined()
    expect(t.requestFields('a')).toBeUndefined()
    expect(t.applyRequestFields('other', 'chat', { model: 'other' })).toBeUndefined()
    expect(table('').empty).toBe(true)
  })

  it('lists the presets with their own fields, * first', () => {
    const views = table(
      ISSUE_EXAMPLE.replace('[presets."qwen3-8b"]', '[presets."*"]\n[presets."qwen3-8b"]'),
    ).list()
    expect(views.map((p) => p.name)).toEqual(['*', 'qwen3-8b', 'qwen3-8b:nothink'])
    expect(views[2]).toMatchObject({ variant_of: 'qwen3-8b', load_as: 'qwen3-8b', ctx_size: null })
  })
})

describe('parsePresets refuses a broken file with the file, the preset and what was expected', () => {
  it.each([
    ['[presets.x\nmodel = "m"', /^\/etc\/svc\/presets\.toml: not valid TOML/],
    [
      '[presets.x]\nctx_size = "big"',
      /presets\.toml: preset "x": ctx_size: expected a positive integer, got "big"/,
    ],
    ['[presets.x]\nctx_size = 0', /preset "x": ctx_size: expected a positive integer, got 0/],
    ['[presets.x]\nargs = "--flash-attn"', /preset "x": args: expected a list of strings/],
    [
      '[presets.x]\ntemprature = 0.6',
      /preset "x": unknown field "temprature" \(allowed: model, ctx_size, args/,
    ],
    ['[preset.x]\nmodel = "m"', /unknown table "preset" \(presets are written as \[presets\."<name>"\]\)/],
    ['[presets.x]\nforce = { model = "y" }', /preset "x": force: "model" is not a preset's to set/],
    ['[presets.x]\nstrip = ["top_p"]\nforce = { top_p = 1 }', /preset "x": force: "top_p" is in strip too/],
    [
      '[presets.a]\nmodel = "b"\n[presets.b]\nmodel = "a"',
      /preset "a": model: the variants lead back to themselves \(a → b → a\)/,
    ],
    [
      '[presets.a]\nmodel = "m"\n[presets.v]\nmodel = "a"\nctx_size = 9',
      /preset "v": ctx_size: a variant \(model = "a"\) runs the engine of "a"/,
    ],
    ['[presets."*"]\nmodel = "m"', /preset "\*": model: "\*" applies to every model/],
  ])('%s', (text, message) => {
    expect(problem(text)).toMatch(message)
  })
})

describe('checkPresetModels', () => {
  const knows = async (model: string) => ['tiny-chat', 'openai/gpt-4o-mini'].includes(model)

  it('accepts known refs, hosted refs, Hub names, URLs and paths', async () => {
    const t = table(`
[presets.a]
model = "tiny-chat"
[presets.b]
model = "hf.co/unsloth/Qwen3-8B-GGUF:Q4_K_M"
[presets.c]
model = "/models/x.gguf"
[presets.d]
model = "openai/gpt-4o-mini"
[presets."d:v"]
model = "d"
`)
    expect(await checkPresetModels(t, FILE, knows)).toBeUndefined()
  })

  it('refuses a variant whose base does not exist (a name that is neither a preset nor a model)', async () => {
    const t = table('[presets.a]\nmodel = "tiny-chat"\n[presets."a:v"]\nmodel = "aa"\n')
    expect(await checkPresetModels(t, FILE, knows)).toMatch(
      /presets\.toml: preset "a:v": model: expected another preset of this file or a model svc knows .*got "aa"/,
    )
  })

  it('refuses a preset without model whose name is no model', async () => {
    const t = table('[presets.typo]\ndefaults = { temperature = 1 }\n')
    expect(await checkPresetModels(t, FILE, knows)).toMatch(/preset "typo": model: expected a model to run/)
  })
})
