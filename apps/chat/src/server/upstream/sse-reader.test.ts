import { describe, expect, it } from 'vitest'
import { readSse } from './sse-reader'

function body(chunks: string[]): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder()
  return new ReadableStream({
    start(controller) {
      for (const c of chunks) controller.enqueue(encoder.encode(c))
      controller.close()
    },
  })
}

async function all(chunks: string[]) {
  const out = []
  for await (const e of readSse(body(chunks))) out.push(e)
  return out
}

describe('readSse', () => {
  it('reads events however the body is cut, with any line ending', async () => {
    const text = ': comment\n\nevent: delta\ndata: {"a":1}\n\ndata: x\r\ndata: y\r\n\r\ndata: [DONE]\r\r'
    const expected = [
      { event: 'delta', data: '{"a":1}' },
      { event: 'message', data: 'x\ny' },
      { event: 'message', data: '[DONE]' },
    ]
    expect(await all([text])).toEqual(expected)
    expect(await all(text.split(''))).toEqual(expected)
    // A CRLF split across two chunks is one line end, not an empty line.
    expect(await all(['data: a\r', '\ndata: b\r\n\r\n'])).toEqual([{ event: 'message', data: 'a\nb' }])
  })

  it('delivers a last event that lacks its blank line', async () => {
    expect(await all(['data: last'])).toEqual([{ event: 'message', data: 'last' }])
  })
})
