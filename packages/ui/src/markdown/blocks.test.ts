import { describe, expect, it } from 'vitest'
import { IncrementalMarkdown } from './blocks'

/** A renderer that counts its calls, so a test sees what was re-rendered. */
function counting() {
  const calls: string[] = []
  const render = (md: string) => {
    calls.push(md)
    return `<x>${md}</x>`
  }
  return { calls, render }
}

describe('incremental markdown', () => {
  it('renders a finished block once and only re-renders the open tail', () => {
    const r = counting()
    const md = new IncrementalMarkdown(r.render)
    md.update('# Title\n\nfirst para')
    const view = md.update('# Title\n\nfirst paragraph\n\nsecond')
    expect(view.blocks.map((b) => b.html)).toEqual(['<x># Title\n\n</x>', '<x>first paragraph\n\n</x>'])
    expect(view.tail).toBe('<x>second</x>')
    expect(r.calls.filter((c) => c.startsWith('# Title'))).toHaveLength(1)
  })

  it('never cuts inside a code fence, blank lines included', () => {
    const md = new IncrementalMarkdown((s) => s)
    const view = md.update('```js\nconst a = 1\n\nconst b = 2\n```\n\nafter')
    expect(view.blocks.map((b) => b.html)).toEqual(['```js\nconst a = 1\n\nconst b = 2\n```\n\n'])
    expect(view.tail).toBe('after')
  })

  it('keeps a fence open until a closing fence of the same kind and length', () => {
    const md = new IncrementalMarkdown((s) => s)
    const view = md.update('````\n```\n\nstill code\n````\n\n')
    expect(view.blocks).toHaveLength(1)
    expect(view.tail).toBe('')
  })

  it('starts over when the text is replaced rather than extended', () => {
    const md = new IncrementalMarkdown((s) => s)
    md.update('a\n\nb')
    const view = md.update('other\n\n')
    expect(view.blocks.map((b) => b.html)).toEqual(['other\n\n'])
  })

  it('drops the oldest finished blocks past maxChars and says how much', () => {
    const md = new IncrementalMarkdown((s) => s, 20)
    let text = ''
    for (let i = 0; i < 10; i++) text += `para ${i} text\n\n`
    const view = md.update(text)
    expect(view.blocks.reduce((n, b) => n + b.chars, 0)).toBeLessThanOrEqual(20)
    expect(view.dropped).toBe(text.length - view.blocks.reduce((n, b) => n + b.chars, 0))
    expect(view.blocks.at(-1)?.html).toBe('para 9 text\n\n')
  })
})
