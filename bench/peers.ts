/**
 * The processes the hop section measures: the fake upstream (the limit), and in front of it svc, the
 * minimal Node proxy and Caddy's reverse_proxy. All on 127.0.0.1, started and stopped here.
 */
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createTokenStore } from '@svc/auth'
import { freePort } from '@svc/providers/internals'
import {
  programAvailable,
  REPO_ROOT,
  runCaddy,
  spawnWatched,
  startApi,
  startFakeUpstream,
} from '@svc/testing'

export interface Peer {
  name: string
  url: string
  /** The `model` to send. */
  model: string
  headers?: Record<string, string>
  stop(): Promise<void>
}

/** The fake upstream answering a small JSON chat completion: the limit. */
export async function startDirect(): Promise<Peer> {
  const upstream = await startFakeUpstream()
  return {
    name: 'direct',
    url: upstream.url,
    model: 'fake-model',
    stop: async () => void (await upstream.stop()),
  }
}

/**
 * svc (the build) with auth on and a remote slot `bench` pointing at the upstream; requests carry a
 * `v1-only` bearer token minted for the config dir before svc starts (what `svc token create` does
 * offline). The slot is loaded as the trusted proxy would ask (loopback, a person named).
 */
export async function startSvc(upstream: string): Promise<Peer> {
  const configDir = await mkdtemp(join(tmpdir(), 'svc-bench-config-'))
  await mkdir(join(configDir, 'slots'), { recursive: true })
  await writeFile(
    join(configDir, 'slots', 'bench.toml'),
    `provider = "llm"\nruntime = "remote"\nurl = "${upstream}"\nrestart = "no"\n`,
  )
  const store = createTokenStore({ configDir, watch: false, flushIntervalMs: 0 })
  const { token } = await store.create({ label: 'bench', scope: 'v1-only' })
  await store.close()
  const api = await startApi({
    configDir,
    built: true,
    env: { SVC_LOG_LEVEL: 'info', SVC_AUTH_ENABLED: '1' },
  })
  const load = await fetch(`${api.url}/api/slots/bench/load?wait=true`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-forwarded-email': 'bench@localhost' },
    body: '{}', // a remote slot loads the model its remote serves
  })
  if (load.status !== 200) throw new Error(`svc bench slot did not load: ${load.status} ${await load.text()}`)
  return {
    name: 'svc (auth on, bearer)',
    url: api.url,
    model: 'bench',
    headers: { authorization: `Bearer ${token}` },
    stop: async () => {
      await api[Symbol.asyncDispose]()
      await rm(configDir, { recursive: true, force: true })
    },
  }
}

/** The Node ceiling: the least a Node proxy can do (bench/node-proxy.mjs), in front of the upstream. */
export async function startNodeProxy(upstream: string): Promise<Peer> {
  const port = await freePort()
  const proxy = spawnWatched(process.execPath, [
    join(REPO_ROOT, 'bench/node-proxy.mjs'),
    String(port),
    upstream,
  ])
  await proxy.waitFor(/listening on (http:\/\/\S+)/, { what: 'node-proxy', timeoutMs: 10_000 })
  return {
    name: 'minimal Node proxy',
    url: `http://127.0.0.1:${port}`,
    model: 'fake-model',
    stop: async () => void (await proxy.stop()),
  }
}

/** Caddy's `reverse_proxy` in front of the upstream; undefined (said loudly) when Caddy is not installed. */
export async function startCaddy(upstream: string): Promise<Peer | undefined> {
  if (!programAvailable('caddy', 'apt-get install caddy')) return undefined
  const port = await freePort()
  const dir = await mkdtemp(join(tmpdir(), 'svc-bench-caddy-'))
  const config = join(dir, 'Caddyfile')
  await writeFile(
    config,
    `{\n\tadmin off\n\tauto_https off\n}\n:${port} {\n\tbind 127.0.0.1\n\treverse_proxy ${new URL(upstream).host}\n}\n`,
  )
  const url = `http://127.0.0.1:${port}`
  const caddy = await runCaddy({
    config,
    dataDir: dir,
    timeoutMs: 15_000,
    ready: () =>
      fetch(url).then(
        async (r) => {
          await r.body?.cancel()
          return true
        },
        () => undefined,
      ),
  })
  return {
    name: 'Caddy reverse_proxy',
    url,
    model: 'fake-model',
    stop: async () => {
      await caddy[Symbol.asyncDispose]()
      await rm(dir, { recursive: true, force: true })
    },
  }
}
