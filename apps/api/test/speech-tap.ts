/**
 * svc's espeak-ng speech server (the real engine, real espeak-ng) behind a recording pass-through
 * proxy: a tts slot pointed at the proxy (`runtime = "remote"`) lets a test see every request svc
 * makes to the engine (the text asked, when it was asked, when the answer's last byte came, how
 * many bytes), to tell streaming from a whole synthesis and to see work stop when a client leaves.
 */
import { createServer, request as httpRequest, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { ESPEAK_SPEECH_SERVER } from '@svc/providers'
import { type ServerProcess, startServerProcess } from '@svc/testing'

/** One engine request svc made. Times are `performance.now()` of this process. */
export interface TappedRequest {
  path: string
  /** The JSON body's `input` (what svc asked the engine to say). */
  input?: string
  startedAt: number
  /** When the engine's answer ended (undefined while it runs). */
  endedAt?: number
  /** Bytes of the engine's answer (the WAV). */
  bytes: number
  status?: number
}

export interface SpeechTap extends AsyncDisposable {
  /** The proxy's URL, for the slot's `url`. */
  url: string
  /** Every `POST /v1/audio/speech` so far, in order. */
  speech: TappedRequest[]
}

/** Starts the engine on a free port and the proxy in front of it. */
export async function startSpeechTap(): Promise<SpeechTap> {
  const engine: ServerProcess = await startServerProcess({
    command: process.execPath,
    args: [ESPEAK_SPEECH_SERVER, '--host', '127.0.0.1', '--port', '0'],
    ready: /listening at (http:\/\/[0-9.:]+)/,
    what: 'espeak speech server',
    timeoutMs: 30_000,
  })
  const target = new URL(engine.url)
  const speech: TappedRequest[] = []
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (c: Buffer) => chunks.push(c))
    req.on('end', () => {
      const body = Buffer.concat(chunks)
      const record: TappedRequest = { path: req.url ?? '/', startedAt: performance.now(), bytes: 0 }
      if (req.method === 'POST' && req.url === '/v1/audio/speech') {
        try {
          record.input = (JSON.parse(body.toString('utf8')) as { input?: string }).input
        } catch {}
        speech.push(record)
      }
      const upstream = httpRequest(
        {
          host: target.hostname,
          port: target.port,
          method: req.method,
          path: req.url,
          headers: { ...req.headers, host: target.host },
        },
        (answer) => {
          record.status = answer.statusCode
          res.writeHead(answer.statusCode ?? 502, answer.headers)
          answer.on('data', (c: Buffer) => {
            record.bytes += c.length
          })
          answer.on('end', () => {
            record.endedAt = performance.now()
          })
          answer.pipe(res)
        },
      )
      upstream.on('error', () => res.destroy())
      // svc went away: the engine's request goes too, as it would without the proxy.
      res.on('close', () => {
        if (!res.writableFinished) upstream.destroy()
      })
      upstream.end(body)
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}`,
    speech,
    async [Symbol.asyncDispose]() {
      server.closeAllConnections()
      await new Promise((resolve) => server.close(resolve))
      await engine[Symbol.asyncDispose]()
    },
  }
}
