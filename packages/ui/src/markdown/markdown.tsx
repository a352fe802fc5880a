import { useMemo, useRef } from 'preact/hooks'
import { copyText } from '../clipboard'
import { IncrementalMarkdown } from './blocks'
import { renderMarkdown } from './render-markdown'

export interface MarkdownProps {
  /** The markdown so far; while streaming, each value extends the previous one. */
  text: string
  /** Most characters kept on screen; older finished blocks are dropped past it. Default 400 000. */
  maxChars?: number
}

/**
 * Renders markdown (GFM, sanitised, highlighted code with a Copy button). Incremental: finished
 * blocks keep their DOM; only the open tail is re-rendered as `text` grows (see blocks.ts).
 */
export function Markdown({ text, maxChars }: MarkdownProps) {
  const engine = useRef<IncrementalMarkdown | null>(null)
  engine.current ??= new IncrementalMarkdown(renderMarkdown, maxChars)
  const view = useMemo(() => engine.current!.update(text), [text])
  // The click handler only serves the Copy <button>s inside (keyboard activation bubbles as a click).
  return (
    // biome-ignore lint/a11y/noStaticElementInteractions: delegated from real buttons
    // biome-ignore lint/a11y/useKeyWithClickEvents: delegated from real buttons
    <div
      class="svc-markdown"
      onClick={async (event) => {
        const button = (event.target as Element).closest?.('[data-copy-code]')
        const code = button?.parentElement?.querySelector('code')?.textContent
        if (!button || code == null) return
        button.textContent = (await copyText(code)) ? 'Copied' : 'Copy failed'
        setTimeout(() => {
          button.textContent = 'Copy'
        }, 1500)
      }}
    >
      {view.dropped > 0 ? (
        <p class="svc-markdown-dropped">
          … {view.dropped.toLocaleString()} earlier characters are not shown.
        </p>
      ) : null}
      {view.blocks.map((b) => (
        <div key={b.key} dangerouslySetInnerHTML={{ __html: b.html }} />
      ))}
      <div dangerouslySetInnerHTML={{ __html: view.tail }} />
    </div>
  )
}
