/**
 * `svc doctor`: the ports the API and the chat app listen on are free, or held by svc itself (asked
 * over HTTP: the API answers `/api/health/system`, the chat app `/api/health`).
 */
import { createServer } from 'node:net'
import type { Finding } from './finding'

export interface PortToCheck {
  /** "the API", "the chat app" */
  what: string
  /** The variable that moves it: `SVC_PORT`, `SVC_CHAT_PORT`. */
  variable: string
  port: number
}

export async function checkPort(p: PortToCheck): Promise<Finding> {
  const label = `port ${p.port} (${p.what}, ${p.variable})`
  if (p.port === 0) return { mark: 'ok', text: `${label}: 0, a free one is picked at start` }
  const busy = await inUse(p.port)
  if (!busy) return { mark: 'ok', text: `${label}: free` }
  if (busy !== 'EADDRINUSE')
    return {
      mark: 'fail',
      text: `${label}: cannot listen on it (${busy})`,
      fix: `choose a port above 1023 this user may open: ${p.variable}=<port>`,
    }
  const svc = await whichSvc(p.port)
  if (svc) return { mark: 'ok', text: `${label}: in use by svc (${svc})` }
  return {
    mark: 'fail',
    text: `${label}: in use by another program`,
    fix: `stop that program (ss -ltnp 'sport = :${p.port}' names it), or give ${p.what} another port: ${p.variable}=<port> svc start`,
  }
}

/** undefined when the port can be bound on every address; else the error code. */
function inUse(port: number): Promise<string | undefined> {
  return new Promise((resolve) => {
    const server = createServer()
    server.once('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? error.message))
    server.listen({ port, exclusive: true }, () => server.close(() => resolve(undefined)))
  })
}

/** "the API <version>" / "the chat app <version>" when svc answers on the port, else undefined. */
async function whichSvc(port: number): Promise<string | undefined> {
  for (const [path, what] of [
    ['/api/health/system', 'the API'],
    ['/api/health', 'the chat app'],
  ] as const) {
    try {
      const res = await fetch(`http://127.0.0.1:${port}${path}`, { signal: AbortSignal.timeout(1500) })
      const body = (await res.json().catch(() => null)) as { status?: unknown; version?: unknown } | null
      if (res.ok && body?.status === 'ok' && typeof body.version === 'string')
        return `${what} ${body.version}`
    } catch {
      // not HTTP, or not answering: not svc
    }
  }
  return undefined
}
