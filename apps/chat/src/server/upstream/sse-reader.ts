/** One Server-Sent Event: its `event` name (default `message`) and its `data` lines joined. */
export interface SseEvent {
  event: string
  data: string
}

/**
 * Parses an SSE body as it arrives (any chunking, `\n` or `\r\n` line ends); comments and fields other
 * than `event`/`data` are skipped. Ends when the body ends; a final event without its blank line is
 * still delivered.
 */
export async function* readSse(body: ReadableStream<Uint8Array>): AsyncGenerator<SseEvent> {
  const decoder = new TextDecoder()
  let buffer = ''
  let event = ''
  let data: string[] = []
  const flush = (): SseEvent | undefined => {
    const out = data.length > 0 ? { event: event || 'message', data: data.join('\n') } : undefined
    event = ''
    data = []
    return out
  }
  for await (const chunk of body as unknown as AsyncIterable<Uint8Array>) {
    buffer += decoder.decode(chunk, { stream: true })
    let nl = buffer.search(/\r?\n|\r/)
    // A lone \r at the end may be the first half of \r\n: wait for the next chunk.
    while (nl >= 0 && !(nl === buffer.length - 1 && buffer.endsWith('\r'))) {
      const line = buffer.slice(0, nl)
      const sep = buffer.startsWith('\r\n', nl) ? 2 : 1
      buffer = buffer.slice(nl + sep)
      if (line === '') {
        const out = flush()
        if (out) yield out
      } else if (!line.startsWith(':')) {
        const colon = line.indexOf(':')
        const field = colon < 0 ? line : line.slice(0, colon)
        const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '')
        if (field === 'data') data.push(value)
        else if (field === 'event') event = value
      }
      nl = buffer.search(/\r?\n|\r/)
    }
  }
  buffer += decoder.decode()
  if (buffer.startsWith('data:')) data.push(buffer.slice(5).replace(/^ /, ''))
  const last = flush()
  if (last) yield last
}
