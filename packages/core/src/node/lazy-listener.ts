/**
 * A request listener made on the first request instead of at start. `load` (an import of what the
 * listener needs) runs once; requests that arrive meanwhile wait for it, their bodies unread. What it
 * loads then costs a server that nobody has used yet nothing. If `load` fails, the request is answered
 * 500 `internal.error` and the next request tries again.
 */
import { renderError } from '../errors'

// The shape of `node:http`'s response this writes, so that core imports no I/O module.
interface LazyResponse {
  readonly headersSent: boolean
  writeHead(status: number, headers: Record<string, string>): unknown
  end(body: string): unknown
}

export function lazyListener<Req, Res extends LazyResponse>(
  load: () => Promise<(req: Req, res: Res) => unknown>,
): (req: Req, res: Res) => void {
  let listener: ((req: Req, res: Res) => unknown) | undefined
  let loading: Promise<(req: Req, res: Res) => unknown> | undefined
  return (req, res) => {
    if (listener) {
      listener(req, res)
      return
    }
    loading ??= load().then(
      (made) => (listener = made),
      (error: unknown) => {
        loading = undefined
        throw error
      },
    )
    loading.then(
      (made) => made(req, res),
      (error: unknown) => {
        if (res.headersSent) return
        const { status, headers, body } = renderError(error)
        res.writeHead(status, headers)
        res.end(body)
      },
    )
  }
}
