/**
 * Server-Sent Events parsed from a response body stream (`fetch`), for requests `EventSource` cannot
 * make (a POST with a JSON body). Follows the WHATWG event-stream rules: lines end in LF, CRLF or CR;
 * `data` lines join with LF; `:` lines are comments; an event is dispatched at a blank line; one cut
 * off by the end of the stream is dropped.
 */
export interface SseMessage {
  event: string
  data: string
  id?: string
}

export async function* parseSse(body: ReadableStream<Uint8Array>): AsyncGenerator<SseMessage> {
  const reader = body.getReader()
  const decoder = new TextDecoder()
  let buffer = ''
  let data: string[] = []
  let event = ''
  let id: string | undefined
  /** Applies one line; returns the event a blank line completes. */
  const take = (line: string): SseMessage | undefined => {
    if (line === '') {
      const message =
        data.length > 0
          ? { event: event || 'message', data: data.join('\n'), ...(id ? { id } : {}) }
          : undefined
      data = []
      event = ''
      return message
    }
    if (line.startsWith(':')) return undefined
    const colon = line.indexOf(':')
    const field = colon < 0 ? line : line.slice(0, colon)
    let value = colon < 0 ? '' : line.slice(colon + 1)
    if (value.startsWith(' ')) value = value.slice(1)
    if (field === 'data') data.push(value)
    else if (field === 'event') event = value
    else if (field === 'id') id = value
    return undefined
  }
  try {
    while (true) {
      const { value, done } = await reader.read()
      if (done) break
      buffer += decoder.decode(value, { stream: true })
      // A CR at the very end may be the first half of CRLF: wait for the next chunk.
      const lines = buffer.split(/\r\n|\n|\r(?!$)/)
      buffer = lines.pop() ?? ''
      for (const line of lines) {
        const message = take(line)
        if (message) yield message
      }
    }
    // A lone CR held back at the very end was a line end after all.
    if (buffer.endsWith('\r')) {
      for (const line of [buffer.slice(0, -1), '']) {
        const message = take(line)
        if (message) yield message
      }
    }
    // The spec discards an event the stream ended in the middle of.
  } finally {
    reader.releaseLock()
  }
}
