import { describe, expect, it } from 'vitest'
import { parseSse, type SseMessage } from './sse'

function streamOf(chunks: string[]): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder()
  return new ReadableStream({
    start(controller) {
      for (const c of chunks) controller.enqueue(encoder.encode(c))
      controller.close()
    },
  })
}

async function all(chunks: string[]): Promise<SseMessage[]> {
  const out: SseMessage[] = []
  for await (const m of parseSse(streamOf(chunks))) out.push(m)
  return out
}

describe('parseSse', () => {
  it('parses events split anywhere across chunks, CRLF and CR included', async () => {
    const text = 'event: snapshot\r\ndata: {"a":1}\r\n\r\n: ping\n\ndata: x\rdata: y\r\r'
    const whole = await all([text])
    const split = await all(text.split(''))
    expect(whole).toEqual([
      { event: 'snapshot', data: '{"a":1}' },
      { event: 'message', data: 'x\ny' },
    ])
    expect(split).toEqual(whole)
  })

  it('decodes UTF-8 split inside a character', async () => {
    const bytes = new TextEncoder().encode('data: héllo ✓\n\n')
    const stream = new ReadableStream<Uint8Array>({
      start(c) {
        for (const b of bytes) c.enqueue(new Uint8Array([b]))
        c.close()
      },
    })
    const out: SseMessage[] = []
    for await (const m of parseSse(stream)) out.push(m)
    expect(out).toEqual([{ event: 'message', data: 'héllo ✓' }])
  })

  it('keeps ids and drops an event the stream ended in the middle of', async () => {
    expect(await all(['id: 7\ndata: a\n\ndata: b'])).toEqual([{ event: 'message', data: 'a', id: '7' }])
  })
})
