/**
 * A gate in front of the fixture's file server, so a test decides how long a pull lasts: while it is
 * held, a download's request waits unanswered (the slot stays `pulling` as long as the test needs,
 * however fast or slow the box is); released, every waiting and later request passes through to the
 * file server (Range header and all) as if the gate were not there. Open unless a test holds it.
 */
import { createServer, request, type Server } from 'node:http'

export interface PullGate extends AsyncDisposable {
  /** The gate's base URL: the catalogue's model URLs point here. */
  url: string
  /** Requests reaching the gate so far (waiting or passed), by path. */
  readonly seen: string[]
  /** Holds every request from now until the returned release is called. */
  hold(): () => void
}

/** Starts a gate on 127.0.0.1 (port 0) that passes requests to `target` (`http://host:port`). */
export async function startPullGate(target: string): Promise<PullGate> {
  let opened: Promise<void> = Promise.resolve()
  const seen: string[] = []
  const server: Server = createServer((req, res) => {
    seen.push(req.url ?? '/')
    void opened.then(() => {
      const upstream = request(
        `${target}${req.url ?? '/'}`,
        { method: req.method, headers: req.headers },
        (answer) => {
          res.writeHead(answer.statusCode ?? 502, answer.headers)
          answer.pipe(res)
        },
      )
      upstream.on('error', () => res.destroy())
      res.on('close', () => upstream.destroy())
      req.pipe(upstream)
    })
  })
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
  const address = server.address()
  const port = typeof address === 'object' && address ? address.port : 0
  return {
    url: `http://127.0.0.1:${port}`,
    seen,
    hold() {
      let release = () => {}
      opened = new Promise<void>((r) => {
        release = r
      })
      return () => release()
    },
    async [Symbol.asyncDispose]() {
      server.closeAllConnections()
      await new Promise((r) => server.close(r))
    },
  }
}
