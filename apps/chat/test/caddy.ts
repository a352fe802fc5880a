/** A real Caddy in front of the chat app, on a free high port, as the installer's proxy would be. */
import { execFile } from 'node:child_process'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { runCaddy } from '@svc/testing'

const exec = promisify(execFile)

export async function freePort(): Promise<number> {
  const server = createServer()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const port = (server.address() as { port: number }).port
  await new Promise<void>((resolve) => server.close(() => resolve()))
  return port
}

export interface Caddy extends AsyncDisposable {
  /** `http://127.0.0.1:<port>` */
  url: string
  output(): string
}

export interface ChatBehindCaddyOptions {
  chatPort: number
  /** Basic-auth users and their passwords. */
  users: Record<string, string>
  /** Added as `X-Svc-Proxy-Secret` on the way to the chat app. */
  proxySecret: string
}

/**
 * The chat part of the installer's Caddyfile, on plain HTTP: every inbound identity and secret header
 * stripped, `/chat` → `/chat/`, `/chat/*` behind basic auth with the prefix stripped, the user's name
 * forwarded as `X-Forwarded-Email`, the proxy secret added, the browser's Basic header not forwarded.
 */
export async function startCaddyForChat(options: ChatBehindCaddyOptions): Promise<Caddy> {
  const dir = await mkdtemp(join(tmpdir(), 'svc-chat-caddy-'))
  const port = await freePort()
  const users: string[] = []
  for (const [name, password] of Object.entries(options.users)) {
    const { stdout } = await exec('caddy', ['hash-password', '--plaintext', password])
    users.push(`\t\t\t${name} ${stdout.trim()}`)
  }
  const caddyfile = `{
	admin off
	auto_https off
}

http://127.0.0.1:${port} {
	request_header -X-Forwarded-Email
	request_header -X-Svc-Proxy-Secret
	redir /chat /chat/ 308
	handle_path /chat/* {
		basicauth {
${users.join('\n')}
		}
		reverse_proxy 127.0.0.1:${options.chatPort} {
			header_up X-Forwarded-Email {http.auth.user.id}
			header_up X-Svc-Proxy-Secret ${options.proxySecret}
			header_up -Authorization
		}
	}
	respond 404
}
`
  const file = join(dir, 'Caddyfile')
  await writeFile(file, caddyfile)
  const url = `http://127.0.0.1:${port}`
  const { caddy } = await runCaddy({
    config: file,
    dataDir: dir,
    timeoutMs: 20_000,
    ready: () =>
      fetch(`${url}/nothing`).then(
        (r) => (r.status === 404 ? true : undefined),
        () => undefined,
      ),
  })
  return {
    url,
    output: caddy.output,
    async [Symbol.asyncDispose]() {
      await caddy.stop()
      await rm(dir, { recursive: true, force: true })
    },
  }
}
