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
