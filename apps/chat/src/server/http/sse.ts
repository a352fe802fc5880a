const encoder = new TextEncoder()

/** Sends one named event; a no-op once the browser has gone. */
export type SendEvent = (event: string, data: unknown) => void

/**
 * A `text/event-stream` response fed by `run`. It opens with a comment line so that proxies flush at
 * once, is never compressed or buffered (`no-transform`, `X-Accel-Buffering: no`), and closes when
 * `run` settles. `onCancel` runs when the browser stops reading (Stop, a closed tab).
 */
export function sseResponse(run: (send: SendEvent) => Promise<unknown>, onCancel: () => void): Response {
  let open = true
  const stream = new ReadableStream<Uint8Array>({
    start(controller) {
      const send: SendEvent = (event, data) => {
        if (!open) return
        try {
          controller.enqueue(encoder.encode(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`))
        } catch {
          open = false
        }
      }
      controller.enqueue(encoder.encode(': svc chat\n\n'))
      void run(send).finally(() => {
        if (!open) return
        open = false
        controller.close()
      })
    },
    cancel() {
      open = false
      onCancel()
    },
  })
  return new Response(stream, {
    headers: {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-cache, no-transform',
      'x-accel-buffering': 'no',
    },
  })
}
