/**
 * The Activity page's live data: one stream of `/api/events?activity=1` (its `activity.snapshot`
 * replaces the state, as the live store's `snapshot` does; `activity.start` adds a request in flight,
 * `activity.update` refreshes its figures, `activity.end` moves it to the finished list), reconnecting with backoff (0.5 s doubling to 5 s).
 * The stream is its own, opened only while the page is: other pages' streams carry no per-request
 * events.
 */
import { readSse } from '@svc/core'
import type { InferResponseType } from 'hono/client'
import { useEffect, useState } from 'preact/hooks'
import type { api } from '../../api/client'
import { authHeaders } from '../../api/session'

export type ActivityAnswer = InferResponseType<(typeof api.api.activity)['$get'], 200>
export type ActivityEntry = ActivityAnswer['recent'][number]
export type CaptureState = ActivityAnswer['capture']

/** Finished requests kept on the page (the API keeps as many). */
const KEPT = 300

export interface ActivityFeedState {
  /** Newest first. */
  inflight: ActivityEntry[]
  /** Newest first. */
  recent: ActivityEntry[]
  capture: CaptureState | null
  connection: 'connecting' | 'open' | 'reconnecting' | 'refused'
}

export const EMPTY_FEED: ActivityFeedState = {
  inflight: [],
  recent: [],
  capture: null,
  connection: 'connecting',
}

/** The state after one event of the stream (pure). */
export function applyActivity(state: ActivityFeedState, event: string, data: unknown): ActivityFeedState {
  if (event === 'activity.snapshot') {
    const answer = data as ActivityAnswer
    return { ...state, inflight: answer.inflight, recent: answer.recent, capture: answer.capture }
  }
  const entry = data as ActivityEntry
  if (event === 'activity.start') {
    return { ...state, inflight: [entry, ...state.inflight.filter((e) => e.id !== entry.id)] }
  }
  if (event === 'activity.update') {
    // Its figures so far (the model once leased, its wait, its time to first token); ignored once ended.
    return { ...state, inflight: state.inflight.map((e) => (e.id === entry.id ? entry : e)) }
  }
  if (event === 'activity.end') {
    // A request capture kept counts in the switch's "n kept" (the server's cap trims it at the next snapshot).
    const capture =
      entry.captured && state.capture ? { ...state.capture, kept: state.capture.kept + 1 } : state.capture
    return {
      ...state,
      capture,
      inflight: entry.id ? state.inflight.filter((e) => e.id !== entry.id) : state.inflight,
      recent: [entry, ...state.recent].slice(0, KEPT),
    }
  }
  return state
}

/** Follows the activity stream while mounted. */
export function useActivityFeed(): [ActivityFeedState, (capture: CaptureState) => void] {
  const [state, setState] = useState<ActivityFeedState>(EMPTY_FEED)
  useEffect(() => {
    const stop = new AbortController()
    void follow(stop.signal, (update) => setState(update))
    return () => stop.abort()
  }, [])
  return [state, (capture) => setState((s) => ({ ...s, capture }))]
}

async function follow(
  stop: AbortSignal,
  update: (f: (s: ActivityFeedState) => ActivityFeedState) => void,
): Promise<void> {
  let delay = 500
  while (!stop.aborted) {
    try {
      const res = await fetch('/api/events?activity=1', {
        headers: { ...authHeaders(), accept: 'text/event-stream' },
        cache: 'no-store',
        signal: stop,
      })
      if (res.status === 401 || res.status === 403) {
        update((s) => ({ ...s, connection: 'refused' }))
        await res.body?.cancel()
        return
      }
      if (res.ok && res.body) {
        for await (const message of readSse(res.body)) {
          if (!message.event.startsWith('activity.')) continue
          const data: unknown = JSON.parse(message.data)
          if (message.event === 'activity.snapshot') delay = 500
          update((s) => ({
            ...applyActivity(s, message.event, data),
            connection: 'open',
          }))
        }
      }
    } catch {
      // a network error, or the page closed: reconnect below unless stopped
    }
    if (stop.aborted) return
    update((s) => ({ ...s, connection: 'reconnecting' }))
    await new Promise((resolve) => setTimeout(resolve, delay))
    delay = Math.min(delay * 2, 5_000)
  }
}
