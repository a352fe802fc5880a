import { CliError, type Command } from '../context'
import { serverEntry } from '../server-entries'
import { runServerHere } from './serve'

const HELP = `Usage: svc chat [--host HOST] [--port PORT]

Starts the chat app (a web page for chatting with svc's models, conversations kept per person) in
the foreground, on port 3001 unless told otherwise. Stops on SIGTERM or Ctrl-C.

  --host HOST   address to listen on (SVC_CHAT_HOST; default 127.0.0.1; 0.0.0.0 serves the LAN,
                where with auth off everyone who reaches it is the one local user)
  --port PORT   port (SVC_CHAT_PORT; default 3001, 0 picks a free one)

Environment: SVC_CHAT_API_URL (default http://127.0.0.1:8080), SVC_CHAT_API_TOKEN (a v1-only
token when auth is on; used only with SVC_CHAT_TRUSTED_HEADER, e.g. X-Forwarded-Email behind the
proxy), SVC_TRUSTED_PROXIES, SVC_PROXY_SECRET, SVC_CHAT_QUOTA_MB (each person's stored images,
default 1024), SVC_STATE_DIR (the database is <state>/chat/chat.db).`

export const chatCommand: Command = {
  name: 'chat',
  summary: 'start the chat app (port 3001) in the foreground',
  help: HELP,
  async run(args, ctx) {
    const env: Record<string, string | undefined> = { ...ctx.env }
    for (let i = 0; i < args.length; i++) {
      const flag = args[i]
      const value = args[i + 1]
      if ((flag === '--port' || flag === '--host') && value !== undefined) {
        env[flag === '--port' ? 'SVC_CHAT_PORT' : 'SVC_CHAT_HOST'] = value
        i++
      } else {
        throw new CliError(`svc chat: unexpected argument "${flag}"\n\n${HELP}`, 2)
      }
    }
    return runServerHere(serverEntry('chat'), { ...ctx, env })
  },
}
