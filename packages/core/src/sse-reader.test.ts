import { describe, expect, it } from 'vitest'
import { type ReadSseOptions, readSse, type SseEvent } from './sse-reader'

function body(chunks: (string | Uint8Array)[]): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder()
  return new ReadableStream({
    start(controller) {
      for (const c of chunks) controller.enqueue(typeof c === 'string' ? encoder.encode(c) : c)
      controller.close()
    },
  })
}

async function all(chunks: (string | Uint8Array)[], options?: ReadSseOptions): Promise<SseEvent[]> {
  const out: SseEvent[] = []
  for await (const e of readSse(body(chunks), options)) out.push(e)
  return out
}

describe('readSse', () => {
  it.each([
    [
      'LF, CRLF and a closing CR CR',
      ': comment\n\nevent: delta\ndata: {"a":1}\n\ndata: x\r\ndata: y\r\n\r\ndata: [DONE]\r\r',
      [
        { event: 'delta', data: '{"a":1}' },
        { event: 'message', data: 'x\ny' },
        { event: 'message', data: '[DONE]' },
      ],
    ],
    [
      'CRLF, a ping comment and lone CRs',
      'event: snapshot\r\ndata: {"a":1}\r\n\r\n: ping\n\ndata: x\rdata: y\r\r',
      [
        { event: 'snapshot', data: '{"a":1}' },
        { event: 'message', data: 'x\ny' },
      ],
    ],
  ])('reads events however the body is cut (%s)', async (_name, text, expected) => {
    expect(await all([text])).toEqual(expected)
    expect(await all(text.split(''))).toEqual(expected)
  })

  it('takes a CRLF split across two chunks as one line end, not an empty line', async () => {
    expect(await all(['data: a\r', '\ndata: b\r\n\r\n'])).toEqual([{ event: 'message', data: 'a\nb' }])
  })

  it('decodes UTF-8 split inside a character', async () => {
    const bytes = new TextEncoder().encode('data: héllo ✓\n\n')
    expect(await all([...bytes].map((b) => new Uint8Array([b])))).toEqual([
      { event: 'message', data: 'héllo ✓' },
    ])
  })

  it('keeps ids and drops an event the stream ended in the middle of', async () => {
    expect(await all(['id: 7\ndata: a\n\ndata: b'])).toEqual([{ event: 'message', data: 'a', id: '7' }])
  })

  it('delivers a last event that lacks its blank line when asked to keep it', async () => {
    expect(await all(['data: last'], { keepCutOff: true })).toEqual([{ event: 'message', data: 'last' }])
    expect(await all(['event: end\ndata: a\ndata: b'], { keepCutOff: true })).toEqual([
      { event: 'end', data: 'a\nb' },
    ])
  })

  it('cancels the body when the reader leaves early', async () => {
    let cancelled = false
    const stream = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(new TextEncoder().encode('data: one\n\n'))
      },
      cancel() {
        cancelled = true
      },
    })
    for await (const e of readSse(stream)) {
      expect(e.data).toBe('one')
      break
    }
    expect(cancelled).toBe(true)
  })
})
