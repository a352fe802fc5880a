import { describe, expect, it } from 'vitest'
import type { Message } from '../store/types'
import { buildContext, omittedNote } from './context'
import { toMarkdown } from './export'

const base: Message = {
  id: 'x',
  seq: 1,
  role: 'user',
  kind: 'text',
  content: '',
  reasoning: '',
  attachments: [],
  status: 'complete',
  error: null,
  model: null,
  createdAt: 0,
}
const m = (patch: Partial<Message>): Message => ({ ...base, ...patch })

describe('the request context', () => {
  it('is the system prompt and the text turns, without image turns, empty failures or reasoning', async () => {
    const history = [
      m({ role: 'user', content: 'Hi' }),
      m({ role: 'assistant', content: 'Hello', reasoning: 'greet back' }),
      m({ role: 'user', kind: 'image', content: 'a cat' }),
      m({ role: 'assistant', kind: 'image', attachments: [{ file: 'f', mime: 'image/png' }] }),
      m({ role: 'user', content: 'Again?' }),
      m({ role: 'assistant', content: '', status: 'error', error: 'no slot' }),
      m({ role: 'user', content: 'Now?' }),
      m({ role: 'assistant', content: 'Part', status: 'stopped' }),
    ]
    expect(await buildContext('Be brief.', history, async () => undefined)).toEqual([
      { role: 'system', content: 'Be brief.' },
      { role: 'user', content: 'Hi' },
      { role: 'assistant', content: 'Hello' },
      { role: 'user', content: 'Again?' },
      { role: 'user', content: 'Now?' },
      { role: 'assistant', content: 'Part' },
    ])
  })

  it('sends attached images as data URLs and skips one whose file is gone', async () => {
    const history = [
      m({
        content: 'Look',
        attachments: [
          { file: 'here', mime: 'image/jpeg' },
          { file: 'gone', mime: 'image/png' },
        ],
      }),
    ]
    const read = async (a: { file: string }) => (a.file === 'here' ? new Uint8Array([1, 2, 3]) : undefined)
    expect(await buildContext('', history, read)).toEqual([
      {
        role: 'user',
        content: [
          { type: 'text', text: 'Look' },
          { type: 'image_url', image_url: { url: 'data:image/jpeg;base64,AQID' } },
        ],
      },
    ])
  })

  it('sends only the newest images that fit the budget, a note for older ones, and reads no more files than that', async () => {
    const img = (file: string) => ({ file, mime: 'image/png' })
    const history = [
      m({ content: 'first', attachments: [img('a'), img('b')] }),
      m({ role: 'assistant', content: 'ok' }),
      m({ content: 'second', attachments: [img('c'), img('d')] }),
      m({ role: 'assistant', content: 'ok' }),
      m({ content: '', attachments: [img('e')] }),
    ]
    const reads: string[] = []
    const read = async (a: { file: string }) => {
      reads.push(a.file)
      return new Uint8Array(a.file === 'd' ? 50 : 10)
    }
    const url = (n: number) => ({
      type: 'image_url',
      image_url: { url: `data:image/png;base64,${Buffer.alloc(n).toString('base64')}` },
    })
    // Three images at most: e, d and c; a and b are a note.
    const byCount = await buildContext('', history, read, { count: 3, bytes: 1000 })
    expect(byCount.filter((x) => x.role === 'user').map((x) => x.content)).toEqual([
      [
        { type: 'text', text: 'first' },
        { type: 'text', text: omittedNote(2) },
      ],
      [{ type: 'text', text: 'second' }, url(10), url(50)],
      [url(10)],
    ])
    expect(reads).toEqual(['e', 'd', 'c'])
    // 64 bytes at most: e (10) and d (50) fit, c (10 more) does not, and nothing older is read.
    reads.length = 0
    const byBytes = await buildContext('', history, read, { count: 8, bytes: 64 })
    expect(byBytes.filter((x) => x.role === 'user').map((x) => x.content)).toEqual([
      [
        { type: 'text', text: 'first' },
        { type: 'text', text: omittedNote(2) },
      ],
      [{ type: 'text', text: 'second' }, url(50), { type: 'text', text: omittedNote(1) }],
      [url(10)],
    ])
    expect(reads).toEqual(['e', 'd', 'c'])
    expect(omittedNote(1)).toBe(
      '[an image omitted: only the newest images of a conversation are sent to the model]',
    )
  })
})

describe('the Markdown export', () => {
  it('has the title, the system prompt, each turn with its speaker, folded reasoning and unfinished states', () => {
    const md = toMarkdown({
      id: 'c',
      title: 'Soup',
      model: 'primary',
      system: 'Be brief.',
      createdAt: 0,
      updatedAt: 0,
      messages: [
        m({ role: 'user', content: 'Recipe?' }),
        m({ role: 'assistant', content: 'Boil **water**.', reasoning: 'easy', model: 'primary' }),
        m({ role: 'assistant', content: 'Then', status: 'interrupted', error: 'server stopped' }),
      ],
    })
    expect(md).toMatch(/^# Soup\n/)
    expect(md).toContain('## System prompt\n\nBe brief.')
    expect(md).toContain('## You\n\nRecipe?')
    expect(md).toContain(
      '## Assistant (primary)\n\n<details><summary>Reasoning</summary>\n\neasy\n\n</details>\n\nBoil **water**.',
    )
    expect(md).toContain('_(interrupted: server stopped)_')
  })
})
