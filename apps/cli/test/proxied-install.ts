/**
 * `svc install --auth=basic` into a staging root, then the real Caddy running the Caddyfile it
 * rendered, and (on request) the real API started with the api.env it rendered. Ports are moved high
 * with the installer's own flags; for the test only, Caddy's admin endpoint is off (it would collide
 * with other Caddys on this machine) and the include directory points into the staging root.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { freePort } from '@svc/providers/internals'
import { type ApiProcess, LISTENING, startApi } from '@svc/testing'
import { type CliService, startCliService } from './cli-service'
import { PASSWORD, type StagingRoot, stagingRoot, svc } from './install-harness'
import { type CaddyProcess, https, type Reply, type RequestOptions, startCaddy } from './proxy-client'

export const PROXY_HOST = 'svc-proxy-test.local'

export const basicAuth = (user: string, password: string) =>
  `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`

export interface ProxiedInstall extends AsyncDisposable {
  root: StagingRoot
  caddy: CaddyProcess
  ports: { api: number; chat: number; gate: number; http: number; https: number }
  /** The proxy's secret for the API, the chat app's own one and its token, as the installer wrote them. */
  secret: string
  chatSecret: string
  chatToken: string
  /** HTTPS to Caddy for PROXY_HOST, trusting only Caddy's CA (curl --resolve … --cacert root.crt). */
  get(path: string, options?: RequestOptions): Promise<Reply>
  /** The auth gate (`svc auth-gate`, as svc-auth.service runs it with api.env): Caddy asks it. */
  gate: CliService
  /**
   * Starts the real API with the rendered api.env (target paths moved into the staging root);
   * `extra` adds settings a user would add to api.env (e.g. SVC_DASHBOARD_DIR).
   */
  startApi(extra?: Record<string, string>): Promise<ApiProcess>
  /**
   * Starts the real chat app as svc-chat.service does (`svc chat`) with the rendered chat.env, its
   * state dir moved into the staging root.
   */
  startChat(): Promise<CliService>
}

export async function installBehindCaddy(): Promise<ProxiedInstall> {
  const root = await stagingRoot()
  const work = await mkdtemp(join(tmpdir(), 'svc-proxy-test-'))
  let caddy: CaddyProcess | undefined
  let gate: CliService | undefined
  const dispose = async () => {
    await caddy?.[Symbol.asyncDispose]()
    await gate?.[Symbol.asyncDispose]()
    await root[Symbol.asyncDispose]()
    await rm(work, { recursive: true, force: true })
  }
  try {
    const ports = {
      api: await freePort(),
      chat: await freePort(),
      gate: await freePort(),
      http: await freePort(),
      https: await freePort(),
    }
    const flags = Object.entries(ports).flatMap(([k, v]) => [`--${k}-port`, String(v)])
    const r = await svc(['install', '--auth=basic', '--root', root.dir, ...flags], {
      SVC_ADMIN_USER: 'admin',
      SVC_ADMIN_PASSWORD: PASSWORD,
      SVC_HOSTNAME: PROXY_HOST,
    })
    if (r.code !== 0) throw new Error(`svc install failed:\n${r.stdout}\n${r.stderr}`)
    const caddyfile = (await root.read('/etc/svc/Caddyfile'))
      .replace('{\n', '{\n\tadmin off\n')
      .replace('import /etc/svc/caddy.d/', `import ${root.path('/etc/svc/caddy.d')}/`)
    if (!caddyfile.includes(`https_port ${ports.https}`))
      throw new Error('the Caddyfile ignores --https-port')
    await writeFile(join(work, 'Caddyfile'), caddyfile, { mode: 0o600 })
    const apiEnv = await root.env('/etc/svc/api.env')
    gate = await startCliService({
      subcommand: 'auth-gate',
      env: {
        ...apiEnv,
        SVC_AUTH_GATE_USERS: root.path(apiEnv.SVC_AUTH_GATE_USERS ?? '/etc/svc/admin.htpasswd'),
      },
      ready: /"msg":"svc auth gate listening","url":"(http:[^"]+)"/,
    })
    caddy = await startCaddy({
      config: join(work, 'Caddyfile'),
      dataDir: join(work, 'data'),
      hostname: PROXY_HOST,
      httpsPort: ports.https,
    })
    const started = caddy
    return {
      root,
      caddy: started,
      gate,
      ports,
      secret: (await root.env('/etc/svc/api.env')).SVC_PROXY_SECRET ?? '',
      chatSecret: (await root.env('/etc/svc/chat.env')).SVC_PROXY_SECRET ?? '',
      chatToken: (await root.env('/etc/svc/chat.env')).SVC_CHAT_API_TOKEN ?? '',
      get: (path, options = {}) =>
        https({ hostname: PROXY_HOST, port: ports.https, ca: started.ca }, path, options),
      async startApi(extra = {}) {
        const { SVC_CONFIG_DIR, SVC_STATE_DIR, SVC_CACHE_DIR, ...env } = await root.env('/etc/svc/api.env')
        return startApi({
          env: { ...env, SVC_CACHE_DIR: root.path(SVC_CACHE_DIR ?? '/var/lib/svc/cache'), ...extra },
          configDir: root.path(SVC_CONFIG_DIR ?? '/etc/svc'),
          stateDir: root.path(SVC_STATE_DIR ?? '/var/lib/svc'),
        })
      },
      async startChat() {
        const env = await root.env('/etc/svc/chat.env')
        return startCliService({
          subcommand: 'chat',
          env: { ...env, SVC_STATE_DIR: root.path(env.SVC_STATE_DIR ?? '/var/lib/svc') },
          ready: LISTENING.chat,
        })
      },
      [Symbol.asyncDispose]: dispose,
    }
  } catch (error) {
    await dispose()
    throw error
  }
}
