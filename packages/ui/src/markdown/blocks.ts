/**
 * Incremental markdown for streamed text. Tokens arrive a few characters at a time; re-parsing the
 * whole answer on every token costs O(n²) over an answer and churns memory. Instead the text is cut
 * into blocks at blank lines outside code fences: a finished block is rendered once and never again,
 * only the open tail is re-rendered. Past `maxChars` the oldest finished blocks are dropped from view
 * (and counted), so a runaway output cannot exhaust the browser.
 *
 * Pure (the renderer is injected), so the splitting rules are unit-tested without a DOM.
 */

export interface RenderedBlock {
  /** Stable for the block's life: its start offset in the text. */
  key: number
  html: string
  chars: number
}

export interface MarkdownView {
  blocks: readonly RenderedBlock[]
  /** The open tail's HTML (re-rendered on each update). */
  tail: string
  /** Characters of finished blocks dropped from view to respect `maxChars`. */
  dropped: number
}

const FENCE = /^ {0,3}(`{3,}|~{3,})/

export class IncrementalMarkdown {
  private blocks: RenderedBlock[] = []
  private text = ''
  /** Where the open tail starts. */
  private stable = 0
  /** How far complete lines have been scanned for boundaries. */
  private scanned = 0
  private fence: string | null = null
  private keptChars = 0
  private dropped = 0

  constructor(
    private readonly render: (markdown: string) => string,
    private readonly maxChars = 400_000,
  ) {}

  /** Takes the whole text so far. A text that does not extend the previous one starts over. */
  update(text: string): MarkdownView {
    if (!text.startsWith(this.text)) this.reset()
    this.text = text
    this.scan()
    return { blocks: this.blocks, tail: this.render(text.slice(this.stable)), dropped: this.dropped }
  }

  private reset(): void {
    this.blocks = []
    this.text = ''
    this.stable = 0
    this.scanned = 0
    this.fence = null
    this.keptChars = 0
    this.dropped = 0
  }

  private scan(): void {
    const text = this.text
    let lineStart = this.scanned
    for (let nl = text.indexOf('\n', lineStart); nl >= 0; nl = text.indexOf('\n', lineStart)) {
      const line = text.slice(lineStart, nl)
      const marker = FENCE.exec(line)?.[1]
      if (this.fence === null && marker) this.fence = marker
      else if (this.fence !== null && marker && closes(this.fence, marker, line)) this.fence = null
      else if (this.fence === null && line.trim() === '' && lineStart > this.stable) this.commit(nl + 1)
      lineStart = nl + 1
    }
    this.scanned = lineStart
  }

  private commit(end: number): void {
    const source = this.text.slice(this.stable, end)
    if (source.trim() !== '') {
      this.blocks = [...this.blocks, { key: this.stable, html: this.render(source), chars: source.length }]
      this.keptChars += source.length
      while (this.keptChars > this.maxChars && this.blocks.length > 1) {
        const [first, ...rest] = this.blocks
        this.blocks = rest
        this.keptChars -= first!.chars
        this.dropped += first!.chars
      }
    }
    this.stable = end
  }
}

/** A fence closes with the same character, at least as long, and nothing else on the line. */
function closes(open: string, marker: string, line: string): boolean {
  return marker[0] === open[0] && marker.length >= open.length && line.trim() === marker
}
