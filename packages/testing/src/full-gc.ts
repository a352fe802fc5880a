/**
 * A full garbage collection in a running svc, asked for from outside through its inspector, so that a
 * memory reading compares what svc keeps rather than when V8 last chose to give memory back.
 *
 * Without it, readings raced V8's memory reducer: it runs some seconds after traffic stops (its first
 * check 8 s after the last GC, then up to three collections seconds apart), so one reading could come
 * after it had handed 60 MB back and the next before; a 60-second CI soak failed on "RSS grew 18.7 %"
 * with nothing leaking. Start svc with `NODE_OPTIONS=--inspect=127.0.0.1:0` (`INSPECT_ON_LOOPBACK`; no
 * session is attached under traffic), then call `collectGarbage(api)`: the
 * DevTools protocol's `HeapProfiler.collectGarbage`, V8's full collection (DevTools' "collect garbage").
 */
import { once } from 'node:events'
import WebSocket from 'ws'

/** The node option that opens the inspector on a loopback port the kernel picks. */
export const INSPECT_ON_LOOPBACK = '--inspect=127.0.0.1:0'

/** The inspector's WebSocket URL that node prints when started with `--inspect` ("Debugger listening on ws://…"). */
function inspectorUrl(output: string): string {
  const url = /Debugger listening on (ws:\/\/\S+)/.exec(output)?.[1]
  if (!url) throw new Error('svc did not print its inspector URL (started without --inspect?)')
  return url
}

/** Runs a full GC in `server` (started with the inspector) and resolves when V8 reports it done. */
export async function collectGarbage(server: { output(): string }, timeoutMs = 30_000): Promise<void> {
  const socket = new WebSocket(inspectorUrl(server.output()))
  const timer = setTimeout(() => socket.terminate(), timeoutMs)
  try {
    await once(socket, 'open')
    const done = new Promise<void>((resolve, reject) => {
      socket.on('message', (data) => {
        const reply = JSON.parse(String(data)) as { id?: number; error?: { message: string } }
        if (reply.id !== 1) return
        if (reply.error) reject(new Error(`HeapProfiler.collectGarbage: ${reply.error.message}`))
        else resolve()
      })
      socket.on('close', () => reject(new Error('the inspector closed before the collection was done')))
    })
    socket.send(JSON.stringify({ id: 1, method: 'HeapProfiler.collectGarbage' }))
    await done
  } finally {
    clearTimeout(timer)
    socket.close()
  }
}
