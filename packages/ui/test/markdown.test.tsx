// @vitest-environment jsdom
// jsdom, not happy-dom: DOMPurify needs a spec-conformant HTML parser (happy-dom keeps onerror and drops <table>).
import { cleanup, render, screen } from '@testing-library/preact'
import { afterEach, describe, expect, it } from 'vitest'
import { Markdown, renderMarkdown } from '../src/index'

afterEach(cleanup)

describe('renderMarkdown', () => {
  it('renders GFM: tables, task lists, strikethrough, autolinks', () => {
    const html = renderMarkdown(
      '| a | b |\n|---|---|\n| 1 | 2 |\n\n- [x] done\n\n~~old~~ https://example.com',
    )
    expect(html).toContain('<table>')
    expect(html).toContain('type="checkbox"')
    expect(html).toContain('<del>old</del>')
    expect(html).toMatch(/<a href="https:\/\/example.com" target="_blank" rel="noopener noreferrer">/)
  })

  it('removes scripts, event handlers and javascript: links', () => {
    const html = renderMarkdown(
      '<script>alert(1)</script><img src=x onerror="alert(2)">\n\n[click](javascript:alert(3)) <iframe src="//evil"></iframe>',
    )
    expect(html).not.toMatch(/script|onerror|javascript:|iframe/i)
  })

  it('highlights known languages and escapes the rest, with a Copy button per block', () => {
    const html = renderMarkdown('```ts\nconst x: number = 1\n```\n\n```brainfuck\n<>+-\n```')
    expect(html).toContain('hljs-keyword')
    expect(html).toContain('&lt;&gt;+-')
    expect(html.match(/data-copy-code/g)).toHaveLength(2)
  })
})

describe('Markdown', () => {
  it('keeps the DOM of finished blocks while the text streams in', () => {
    const { rerender, container } = render(<Markdown text={'First paragraph.\n\nSec'} />)
    const first = screen.getByText('First paragraph.')
    rerender(<Markdown text={'First paragraph.\n\nSecond paragraph.\n\n```py\nprint(1)\n```'} />)
    expect(screen.getByText('First paragraph.')).toBe(first)
    expect(screen.getByText('Second paragraph.')).toBeTruthy()
    expect(container.querySelector('code')?.textContent).toBe('print(1)')
    expect(screen.getByRole('button', { name: 'Copy' })).toBeTruthy()
  })
})
