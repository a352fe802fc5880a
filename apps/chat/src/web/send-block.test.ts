import { describe, expect, it } from 'vitest'
import type { ChatModel, ModelList } from '../server/upstream/models'
import { plain } from './plain-text'
import { acceptsImages, offersImages, sendBlock, usable } from './send-block'

const model = (patch: Partial<ChatModel>): ChatModel => ({
  id: 'primary',
  slot: 'primary',
  model: 'qwen',
  state: 'ready',
  loaded: true,
  capabilities: ['chat'],
  ...patch,
})
const list = (...models: ChatModel[]): ModelList => ({
  models,
  chat: models.filter((m) => m.capabilities?.includes('chat') ?? true).map((m) => m.id),
  speech: null,
  transcription: null,
})

describe('Send', () => {
  it('is allowed for a loaded model and for one that is loading (svc holds the request)', () => {
    expect(sendBlock(list(model({})), 'primary')).toBeNull()
    expect(sendBlock(list(model({ loaded: false, state: 'warming' })), 'primary')).toBeNull()
  })

  it('is disabled with the reason and Load as the fix when the model is not loaded, never a command', () => {
    const block = sendBlock(list(model({ loaded: false, state: 'offline', model: null })), 'primary')
    expect(block).toEqual({ text: 'primary is not loaded.', load: 'primary' })
    expect(sendBlock(list(), '')?.text).toBe('svc offers no chat model yet: ask an admin to load one.')
    expect(sendBlock(null, 'primary')).toEqual({ text: 'Reading the models…' })
    for (const b of [block, sendBlock(list(), '')]) expect(b?.text).not.toMatch(/svc slot|`/)
  })
})

describe('attachments and helper models', () => {
  it('offers images for vision models and hosted ones (unknown), not for text-only ones', () => {
    expect(acceptsImages(list(model({ capabilities: ['chat', 'vision'] })), 'primary')).toBe(true)
    expect(acceptsImages(list(model({ id: 'cloud/x', capabilities: null })), 'cloud/x')).toBe(true)
    expect(acceptsImages(list(model({})), 'primary')).toBe(false)
  })

  it('offers image mode only when a listed model serves images', () => {
    expect(offersImages(list(model({})))).toBe(false)
    expect(
      offersImages(list(model({}), model({ id: 'sdxl-turbo', slot: 'img', capabilities: ['images'] }))),
    ).toBe(true)
    expect(offersImages(null)).toBe(false)
  })

  it('uses read-aloud and voice input only when their slots can answer', () => {
    expect(usable(model({ id: 'tts' }))).toBe(true)
    expect(usable(model({ id: 'tts', loaded: false, state: 'starting' }))).toBe(true)
    expect(usable(model({ id: 'tts', loaded: false, state: 'offline' }))).toBe(false)
    expect(usable(null)).toBe(false)
  })

  it('reads the words of an answer, not its markup', () => {
    expect(plain('# Title\nSome **bold** and `code`.\n```js\nx()\n```\n[a link](http://x)')).toBe(
      'Title Some bold and code. (code) a link',
    )
  })
})
