/**
 * The one Server-Sent Events reader: the chat server reading the API's stream, the CLI following
 * `/api/events`, the browser reading a streamed chat completion (a POST, which `EventSource` cannot
 * make). Web streams and `TextDecoder` only, so it runs in Node and in the browser alike.
 */

/** One event: its `event` name (default `message`), its `data` lines joined with LF, its `id` if any. */
export interface SseEvent {
  event: string
  data: string
  id?: string
}

export interface ReadSseOptions {
  /**
   * Deliver an event the stream ended in the middle of (no blank line after it) instead of dropping
   * it as the WHATWG rules do. For a server relaying an upstream, where the last chunk of an answer
   * matters more than the letter of the spec.
   */
  keepCutOff?: boolean
}

/**
 * Parses an SSE body as it arrives, following the WHATWG event-stream rules: lines end in LF, CRLF or
 * CR (a CRLF split across chunks is one line end); `:` lines are comments; fields other than `event`,
 * `data` and `id` are skipped; an event is dispatched at a blank line, and only when it has data.
 * Ends when the body ends. Leaving the loop early cancels the body, so the connection is let go.
 */
export async function* readSse(
  body: ReadableStream<Uint8Array>,
  options: ReadSseOptions = {},
): AsyncGenerator<SseEvent> {
  const reader = body.getReader()
  const decoder = new TextDecoder()
  const lines = createLineParser()
  let buffer = ''
  let ended = false
  try {
    while (true) {
      const { value, done } = await reader.read()
      if (done) break
      buffer += decoder.decode(value, { stream: true })
      // A CR at the very end may be the first half of CRLF: wait for the next chunk.
      const complete = buffer.split(/\r\n|\n|\r(?!$)/)
      buffer = complete.pop() ?? ''
      for (const line of complete) {
        const event = lines.take(line)
        if (event) yield event
      }
    }
    ended = true
    buffer += decoder.decode()
    // A lone CR held back at the very end was a line end after all.
    const rest = buffer.endsWith('\r') ? [buffer.slice(0, -1), ''] : options.keepCutOff ? [buffer, ''] : []
    for (const line of rest) {
      const event = lines.take(line)
      if (event) yield event
    }
  } finally {
    if (!ended) await reader.cancel().catch(() => {})
    reader.releaseLock()
  }
}

/** The field state of the event being read; `take` applies one line and returns the event a blank line completes. */
function createLineParser() {
  let data: string[] = []
  let event = ''
  let id: string | undefined
  return {
    take(line: string): SseEvent | undefined {
      if (line === '') {
        const done =
          data.length > 0
            ? { event: event || 'message', data: data.join('\n'), ...(id ? { id } : {}) }
            : undefined
        data = []
        event = ''
        return done
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
    },
  }
}
