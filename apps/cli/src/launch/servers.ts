/**
 * What `svc start` runs: the API and, unless SVC_START_CHAT=0, the chat app, each a node process of
 * its own (a chat app that fails never takes the API with it), from the build.
 */
import { startChatOf } from '../cli-env'
import { type ServerApp, serverArgv } from '../server-entries'

export interface ServerSpec {
  app: ServerApp
  /** For messages: "the API", "the chat app". */
  label: string
  /** node's arguments. */
  argv: string[]
  /** The log line a server writes once it listens; group 1 is its URL. */
  listening: RegExp
}

const LISTENING: Record<ServerApp, RegExp> = {
  api: /"msg":"svc listening","url":"([^"]+)"/,
  chat: /"msg":"svc chat listening","url":"([^"]+)"/,
}

/** What a server's "listening" log line says: see {@link listeningIn}. */
export interface Listening {
  url: string
  bound?: string
  oneLocalUser?: boolean
}

/**
 * The last "listening" line of `spec`'s server in `log` (its JSON log): its `url`, the address it
 * bound (`host` and `port` when the line has them, else the `url`), and for the chat app whether
 * auth is off (everyone is the one local user). Undefined until the line is there.
 */
export function listeningIn(spec: ServerSpec, log: string): Listening | undefined {
  const match = [...log.matchAll(new RegExp(`.*${spec.listening.source}.*`, 'g'))].at(-1)
  if (!match?.[1]) return undefined
  const url = match[1]
  let fields: { host?: unknown; port?: unknown; auth?: unknown } = {}
  try {
    fields = JSON.parse(match[0])
  } catch {
    return { url }
  }
  const { host, port, auth } = fields
  const bound =
    typeof host === 'string' && typeof port === 'number'
      ? `http://${host.includes(':') ? `[${host}]` : host}:${port}`
      : url
  return spec.app === 'chat' && typeof auth === 'string'
    ? { url, bound, oneLocalUser: auth.startsWith('off') }
    : { url, bound }
}

/** The servers to start for `env`, API first. */
export function serversFor(env: Record<string, string | undefined>): ServerSpec[] {
  const apps: ServerApp[] = startChatOf(env) ? ['api', 'chat'] : ['api']
  return apps.map((app) => ({
    app,
    label: app === 'api' ? 'the API' : 'the chat app',
    argv: serverArgv(app),
    listening: LISTENING[app],
  }))
}

/**
 * The environment both servers get: the chat app calls the API where this launcher starts it
 * (SVC_PORT) unless SVC_CHAT_API_URL says otherwise.
 */
export function serverEnv(env: Record<string, string | undefined>): Record<string, string | undefined> {
  const out = { ...env }
  if (!out.SVC_CHAT_API_URL && out.SVC_PORT && out.SVC_PORT !== '0') {
    const host = !out.SVC_HOST || ['0.0.0.0', '::'].includes(out.SVC_HOST) ? '127.0.0.1' : out.SVC_HOST
    out.SVC_CHAT_API_URL = `http://${host.includes(':') ? `[${host}]` : host}:${out.SVC_PORT}`
  }
  return out
}
