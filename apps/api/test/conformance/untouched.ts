/**
 * The rule every surface's table has once, "svc validates only what it must know" (issue 38):
 * fields svc does not read reach the engine as the client sent them. The stand-in keeps a record of
 * what it received, so such a row runs against it only (`only: 'wrong-engine'` in the row).
 */
import { expect } from 'vitest'
import type { ConformanceRow } from './conformance'

export interface UntouchedRequest {
  /** The surface's path; the engine must receive the request on the same path. */
  path: string
  /** Sent, not checked on the way (what svc may shape, such as a token limit). */
  body?: Record<string, unknown>
  /** Sent, not checked on the way. */
  headers?: Record<string, string>
  /** Sent in the body, and the engine must receive each of them as it was sent. */
  untouched: Record<string, unknown>
  /** Sent as headers, and the engine must receive each of them as it was sent. */
  untouchedHeaders?: Record<string, string>
}

/** A row's request and check: 200, and the engine received every `untouched` field and header as sent. */
export function reachesEngineUntouched(
  request: UntouchedRequest,
): Pick<ConformanceRow, 'request' | 'expect'> {
  return {
    request: {
      path: request.path,
      headers: { ...request.headers, ...request.untouchedHeaders },
      body: { ...request.body, ...request.untouched },
    },
    expect: ({ status }, target) => {
      expect(status).toBe(200)
      const sent = target.received?.().findLast((r) => r.path === request.path)
      for (const [name, value] of Object.entries(request.untouchedHeaders ?? {})) {
        expect(sent?.headers[name]).toBe(value)
      }
      expect(sent?.body).toMatchObject(request.untouched)
    },
  }
}
