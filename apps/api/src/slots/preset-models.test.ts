import { defaultSlotConfig, type ModelEntry, type SlotConfig } from '@svc/core'
import { type PresetTable, parsePresets } from '@svc/providers/models'
import { describe, expect, it } from 'vitest'
import { describeWithPresets, resolveWithPresets } from './preset-models'

const FILE = `
[presets."*"]
args = ["--flash-attn", "on"]
[presets.fast]
model = "tiny-chat"
force = { max_tokens = 3 }
[presets.long]
model = "tiny-chat"
ctx_size = 4096
args = ["-b", "64"]
[presets."long:quick"]
model = "long"
force = { max_tokens = 8 }
`

function table(text = FILE): PresetTable {
  const parsed = parsePresets(text, 'presets.toml')
  if (!parsed.ok) throw new Error(parsed.problem)
  return parsed.table
}

const files: Record<string, ModelEntry> = {
  'tiny-chat': { id: 'tiny-chat', format: 'gguf', provider: 'llm', source: 'local', path: '/m/tiny.gguf' },
  whisper: { id: 'whisper', format: 'whisper', provider: 'stt', source: 'local', path: '/m/w.bin' },
}
const asked: string[] = []
const resolve = async (id: string) => {
  asked.push(id)
  const entry = files[id]
  if (!entry) throw new Error(`no ${id}`)
  return entry
}
const primary = defaultSlotConfig('primary')!

describe('loads through presets', () => {
  it('runs an alias that only adds request fields as its ref, with * engine args', async () => {
    const entry = await resolveWithPresets(resolve, () => table())('fast', primary)
    expect(asked.at(-1)).toBe('tiny-chat')
    expect(entry).toMatchObject({
      id: 'tiny-chat',
      engine: { ref: 'tiny-chat', args: ['--flash-attn', 'on'] },
    })
  })

  it('runs a preset with its own engine settings (and its variants) under the preset name', async () => {
    const load = resolveWithPresets(resolve, () => table())
    for (const name of ['long', 'long:quick']) {
      expect(await load(name, primary)).toMatchObject({
        id: 'long',
        path: '/m/tiny.gguf',
        engine: { ref: 'tiny-chat', args: ['--flash-attn', 'on', '-b', '64'], ctxSize: 4096 },
      })
    }
  })

  it('gives * engine args to llm models only, and none to a remote slot', async () => {
    const load = resolveWithPresets(resolve, () => table())
    expect(await load('whisper', defaultSlotConfig('stt')!)).toBe(files.whisper)
    const remote: SlotConfig = { ...primary, runtime: 'remote', url: 'http://10.0.0.5:8080' }
    expect(await load('long', remote)).toBe(files['tiny-chat'])
  })

  it('is the resolver it wraps without presets', async () => {
    const load = resolveWithPresets(resolve, () => table(''))
    expect(await load('tiny-chat', primary)).toBe(files['tiny-chat'])
  })

  it("describes a preset's name as its model under its load name (which slot loads it on request)", async () => {
    const describe = describeWithPresets(
      async (ref) => files[ref],
      () => table(),
    )
    expect(await describe('long:quick')).toMatchObject({ id: 'long', provider: 'llm', path: '/m/tiny.gguf' })
    expect(await describe('fast')).toMatchObject({ id: 'tiny-chat' })
    expect(await describe('nothing')).toBeUndefined()
  })
})
