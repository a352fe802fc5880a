import { createServer, type Server } from 'node:http'

/** How long after the last byte of a cut response its connection is destroyed (ms). */
const CUT_AFTER_MS = 250

export interface FileServer extends AsyncDisposable {
  url: string
  /** Requests seen, with their Range and User-Agent headers. */
  requests: { path: string; range: string | undefined; userAgent: string | undefined }[]
  /**
   * Cut the next response after this many bytes (destroys the socket), once; with `path`, the next
   * response for that path only.
   */
  cutNextAfter(bytes: number, path?: string): void
}

export interface FileServerOptions {
  /** Paths answered with a redirect (302) to the given Location, as a mirror sends clients to a CDN. */
  redirects?: Record<string, string>
}

/**
 * A real HTTP file server for pull tests: serves `files` with Range support (206/416), can redirect,
 * and can be told to drop the connection mid-body, as a flaky mirror does. Paths are matched as sent
 * (percent-escapes included).
 */
export async function serveFiles(
  files: Record<string, Buffer>,
  options: FileServerOptions = {},
): Promise<FileServer> {
  const cuts = new Map<string | undefined, number>()
  const requests: FileServer['requests'] = []
  const server: Server = createServer((req, res) => {
    const path = req.url ?? '/'
    requests.push({ path, range: req.headers.range, userAgent: req.headers['user-agent'] })
    const location = options.redirects?.[path]
    if (location !== undefined) {
      res.writeHead(302, { location }).end()
      return
    }
    const body = files[path]
    if (!body) {
      res.writeHead(404).end('not found')
      return
    }
    let start = 0
    const m = /^bytes=(\d+)-$/.exec(req.headers.range ?? '')
    if (m) {
      start = Number(m[1])
      if (start >= body.length) {
        res.writeHead(416, { 'content-range': `bytes */${body.length}` }).end()
        return
      }
      res.writeHead(206, {
        'content-length': body.length - start,
        'content-range': `bytes ${start}-${body.length - 1}/${body.length}`,
      })
    } else {
      res.writeHead(200, { 'content-length': body.length })
    }
    const rest = body.subarray(start)
    const key = cuts.has(path) ? path : cuts.has(undefined) ? undefined : null
    if (key !== null) {
      const n = cuts.get(key)!
      cuts.delete(key)
      // The cut waits a while after the bytes are out: a client whose reader lags (a loaded box) gets
      // them before the error, since fetch drops what its body stream still holds when it errors.
      res.write(rest.subarray(0, n), () => setTimeout(() => res.destroy(), CUT_AFTER_MS))
      return
    }
    res.end(rest)
  })
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
  const address = server.address()
  const port = typeof address === 'object' && address ? address.port : 0
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    cutNextAfter(bytes, path) {
      cuts.set(path, bytes)
    },
    async [Symbol.asyncDispose]() {
      server.closeAllConnections()
      await new Promise((r) => server.close(r))
    },
  }
}
