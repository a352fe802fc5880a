import { describe, expect, it } from 'vitest'
import type { AnswerFix } from './answer-fix-types'
import { SseRewriter } from './sse-rewrite'

/** A fix that marks every event it sees and doubles `double` events. */
const MARK: AnswerFix = {
  json: (body) => body,
  event: (event) => {
    event.data.seen = true
    return event.data.type === 'double' ? [event, { data: { type: 'extra' } }] : [event]
  },
}

const STREAM =
  'event: a\ndata: {"type":"a","text":"héllo wörld"}\n\n: a comment\n\ndata: {"type":"double"}\r\n\r\ndata: [DONE]\n\n'
const REWRITTEN =
  'event: a\ndata: {"type":"a","text":"héllo wörld","seen":true}\n\n: a comment\n\ndata: {"type":"double","seen":true}\n\ndata: {"type":"extra"}\n\ndata: [DONE]\n\n'

describe('SseRewriter', () => {
  it('rewrites JSON events and leaves the rest, however the bytes are cut (multi-byte characters too)', () => {
    const bytes = Buffer.from(STREAM)
    for (let cut = 1; cut < bytes.length; cut++) {
      const rewriter = new SseRewriter(MARK)
      const out = rewriter.push(bytes.subarray(0, cut)) + rewriter.push(bytes.subarray(cut)) + rewriter.end()
      expect(out, `cut at ${cut}`).toBe(REWRITTEN)
    }
  })

  it('writes an event the stream left without its blank line at the end', () => {
    const rewriter = new SseRewriter(MARK)
    expect(rewriter.push(Buffer.from('data: {"type":"a"}'))).toBe('')
    expect(rewriter.end()).toBe('data: {"type":"a","seen":true}\n\n')
  })
})
