/**
 * One live connection to `/api/events` for the whole dashboard, with reconnect and backoff (0.5 s,
 * doubling to 5 s; reset once a stream opens). Every (re)connect starts with a fresh `snapshot`
 * that replaces the state, so nothing missed while disconnected lingers; `resync` does the same.
 *
 * It reads the stream with `fetch` and the body stream, not `EventSource`: `EventSource` cannot send
 * `Authorization`, and a person who opened the dashboard with a token needs it sent. It behaves like
 * an EventSource otherwise (one connection, named events, automatic reconnect).
 */
import { type ApiEvents, readSse } from '@svc/core'
import { authHeaders } from '../api/session'
import { applyEvent, INITIAL, isApiEvent, type LiveState } from './live-state'

export interface LiveStore {
  get(): LiveState
  subscribe(listener: (state: LiveState) => void): () => void
  start(): void
  stop(): void
}

export function createLiveStore(url = '/api/events'): LiveStore {
  let state = INITIAL
  const listeners = new Set<(s: LiveState) => void>()
  let controller: AbortController | null = null
  let running = false
  const set = (next: LiveState) => {
    if (next === state) return
    state = next
    for (const l of listeners) l(state)
  }
  const sleep = (ms: number, signal: AbortSignal) =>
    new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, ms)
      signal.addEventListener('abort', () => {
        clearTimeout(timer)
        resolve()
      })
    })

  async function loop(stop: AbortSignal) {
    let delay = 500
    while (!stop.aborted) {
      const ac = new AbortController()
      const onStop = () => ac.abort()
      stop.addEventListener('abort', onStop)
      try {
        const res = await fetch(url, {
          headers: { ...authHeaders(), accept: 'text/event-stream' },
          cache: 'no-store',
          signal: ac.signal,
        })
        if (res.status === 401 || res.status === 403) {
          set({ ...state, connection: 'unauthorized' })
          await res.body?.cancel()
        } else if (res.ok && res.body) {
          for await (const message of readSse(res.body)) {
            if (!isApiEvent(message.event)) continue
            const data = JSON.parse(message.data) as ApiEvents[typeof message.event]
            let next = applyEvent(state, message.event, data)
            if (message.event === 'snapshot') {
              delay = 500
              next = { ...next, connection: 'open' }
            }
            set(next)
          }
        }
      } catch {
        // network error or stop: reconnect below unless stopped
      } finally {
        stop.removeEventListener('abort', onStop)
      }
      if (stop.aborted) break
      if (state.connection !== 'unauthorized') set({ ...state, connection: 'reconnecting' })
      await sleep(delay, stop)
      delay = Math.min(delay * 2, 5_000)
    }
  }

  return {
    get: () => state,
    subscribe(listener) {
      listeners.add(listener)
      return () => listeners.delete(listener)
    },
    start() {
      if (running) return
      running = true
      controller = new AbortController()
      void loop(controller.signal)
    },
    stop() {
      running = false
      controller?.abort()
    },
  }
}
