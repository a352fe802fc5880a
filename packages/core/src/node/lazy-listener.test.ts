import { describe, expect, it } from 'vitest'
import { lazyListener } from './lazy-listener'

/** A response that records what was written (the shape `node:http`'s has for this). */
function response() {
  const written: { status?: number; body?: string } = {}
  return {
    written,
    headersSent: false,
    writeHead(status: number) {
      written.status = status
    },
    end(body: string) {
      written.body = body
    },
  }
}
type Res = ReturnType<typeof response>

describe('a listener made on the first request', () => {
  it('is loaded once, not before a request; requests that came meanwhile reach it in order', async () => {
    let loads = 0
    let release = () => {}
    const loaded = new Promise<void>((r) => {
      release = r
    })
    const seen: string[] = []
    const listener = lazyListener<string, Res>(async () => {
      loads++
      await loaded
      return (req) => seen.push(req)
    })
    expect(loads).toBe(0)
    for (const req of ['a', 'b', 'c']) listener(req, response())
    await new Promise((r) => setTimeout(r, 10))
    expect([loads, seen]).toEqual([1, []])
    release()
    await loaded
    await new Promise((r) => setImmediate(r))
    listener('d', response()) // loaded now: called at once
    expect([loads, seen]).toEqual([1, ['a', 'b', 'c', 'd']])
  })

  it('answers 500 with the error body when loading fails, and tries again on the next request', async () => {
    let loads = 0
    const listener = lazyListener<string, Res>(async () => {
      if (++loads === 1) throw new Error('cannot load')
      return (_req, res) => res.end('ok')
    })
    const failed = response()
    listener('a', failed)
    await new Promise((r) => setImmediate(r))
    expect(failed.written.status).toBe(500)
    expect(JSON.parse(failed.written.body!)).toMatchObject({ error: { code: 'internal.error' } })
    const next = response()
    listener('b', next)
    await new Promise((r) => setImmediate(r))
    expect([loads, next.written.body]).toEqual([2, 'ok'])
  })
})
