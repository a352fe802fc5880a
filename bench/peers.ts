/**
 * The processes a benchmark run measures: the fake upstream (the limit), svc in front of it, and
 * Caddy's reverse_proxy in front of it (the peer). All on 127.0.0.1, started and stopped here.
 */
import { type ChildProcess, spawn } from 'node:child_process'
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { createTokenStore, type QuotaLimits } from '@svc/auth'
import { freePort } from '@svc/providers/internals'
import { BUILT_ENTRIES, ensureBuilt, REPO_ROOT, startApi } from '@svc/testing'

export interface Peer {
  name: string
  url: string
  /** The `model` to send. */
  model: string
  headers?: Record<string, string>
  /** The serving process, where the bench started one (for its memory). */
  pid?: number
  stop(): Promise<void>
}

const FAKE = join(REPO_ROOT, 'packages/testing/bin/fake-upstream.mjs')
const CLUSTER = join(REPO_ROOT, 'bench/cluster-svc.mjs')
const NODE_PROXY = join(REPO_ROOT, 'bench/node-proxy.mjs')

export async function startFakeUpstream(args: string[] = []): Promise<Peer> {
  const port = await freePort()
  const child = spawn(process.execPath, [FAKE, '--port', String(port), ...args], {
    stdio: ['ignore', 'pipe', 'inherit'],
  })
  await waitFor(child, /listening on (http:\/\/\S+)/)
  return {
    name: 'direct',
    url: `http://127.0.0.1:${port}`,
    model: 'fake-model',
    pid: child.pid,
    stop: () => kill(child),
  }
}

/**
 * svc (the build) with a remote slot `bench` pointing at the upstream. With `auth`, auth is on and
 * requests carry a `v1-only` bearer token minted for the config dir before svc starts (what `svc token
 * create` does offline).
 */
export async function startSvc(
  upstream: string,
  options: { auth?: boolean; env?: Record<string, string>; limits?: QuotaLimits } = {},
): Promise<Peer> {
  const { configDir, token } = await svcConfig(upstream, options)
  const auth = options.auth
  const api = await startApi({
    configDir,
    built: true,
    env: { SVC_LOG_LEVEL: 'info', ...(auth ? { SVC_AUTH_ENABLED: '1' } : {}), ...options.env },
  })
  const weights = join(api.stateDir, 'bench-model.gguf')
  await writeFile(weights, 'remote slot: svc never reads this file')
  const headers: Record<string, string> = token ? { authorization: `Bearer ${token}` } : {}
  // Loading is an admin action: as the trusted proxy would, name a person (loopback is trusted).
  const load = await fetch(`${api.url}/api/slots/bench/load?wait=true`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      ...(token ? { 'x-forwarded-email': 'bench@localhost' } : {}),
    },
    body: JSON.stringify({ model: weights }),
  })
  if (load.status !== 200) throw new Error(`svc bench slot did not load: ${load.status} ${await load.text()}`)
  return {
    name: auth ? 'svc (auth on, bearer)' : 'svc',
    url: api.url,
    model: 'bench',
    headers,
    pid: api.child.pid,
    stop: async () => {
      await api[Symbol.asyncDispose]()
      await rm(configDir, { recursive: true, force: true })
    },
  }
}

async function svcConfig(
  upstream: string,
  options: { auth?: boolean; enabled?: string; limits?: QuotaLimits },
) {
  const configDir = await mkdtemp(join(tmpdir(), 'svc-bench-config-'))
  await mkdir(join(configDir, 'slots'), { recursive: true })
  const load = options.enabled ? `enabled = true\n[model]\ndefault = "${options.enabled}"\n` : ''
  await writeFile(
    join(configDir, 'slots', 'bench.toml'),
    `provider = "llm"\nruntime = "remote"\nurl = "${upstream}"\nrestart = "no"\n${load}`,
  )
  let token: string | undefined
  if (options.auth) {
    const store = createTokenStore({ configDir, watch: false, flushIntervalMs: 0 })
    const limits = options.limits ? { limits: options.limits } : {}
    token = (await store.create({ label: 'bench', scope: 'v1-only', ...limits })).token
    await store.close()
  }
  return { configDir, token }
}

/**
 * An experiment, not a product: `workers` copies of the built svc (auth on) sharing one port through
 * node:cluster (the primary hands each accepted connection to a worker; wrk's keep-alive connections
 * then talk to their worker directly). Each worker loads the remote slot itself at start.
 */
export async function startClusterSvc(upstream: string, workers: number): Promise<Peer> {
  const weights = join(await mkdtemp(join(tmpdir(), 'svc-bench-model-')), 'bench-model.gguf')
  await writeFile(weights, 'remote slot: svc never reads this file')
  const { configDir, token } = await svcConfig(upstream, { auth: true, enabled: weights })
  const stateDir = await mkdtemp(join(tmpdir(), 'svc-bench-state-'))
  const port = await freePort()
  await ensureBuilt('api')
  const child = spawn(process.execPath, [CLUSTER, String(workers), BUILT_ENTRIES.api], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: {
      ...process.env,
      SVC_HOST: '127.0.0.1',
      SVC_PORT: String(port),
      SVC_CONFIG_DIR: configDir,
      SVC_STATE_DIR: stateDir,
      SVC_AUTH_ENABLED: '1',
      SVC_LOG_LEVEL: 'info',
    },
  })
  await waitFor(child, /all workers ready/, 60_000)
  const url = `http://127.0.0.1:${port}`
  const headers = { authorization: `Bearer ${token}` }
  await untilEveryWorkerServes(url, headers, workers)
  return {
    name: `svc (auth on) in ${workers} processes`,
    url,
    model: 'bench',
    headers,
    stop: async () => {
      await kill(child)
      await rm(configDir, { recursive: true, force: true })
      await rm(stateDir, { recursive: true, force: true })
      await rm(dirname(weights), { recursive: true, force: true })
    },
  }
}

/**
 * A worker listens before its slot has loaded, and the primary hands connections out in turn: until
 * 2 × workers requests in a row, each on a new connection, are answered 200, some worker still
 * answers 409 and wrk would count those as errors.
 */
async function untilEveryWorkerServes(url: string, headers: Record<string, string>, workers: number) {
  const body = JSON.stringify({ model: 'bench', messages: [{ role: 'user', content: 'hi' }], max_tokens: 1 })
  const deadline = Date.now() + 60_000
  for (let inARow = 0; inARow < 2 * workers; ) {
    if (Date.now() > deadline) throw new Error('svc cluster: not every worker loaded its slot within 60 s')
    const r = await fetch(`${url}/v1/chat/completions`, {
      method: 'POST',
      headers: { ...headers, 'content-type': 'application/json', connection: 'close' },
      body,
    })
    await r.arrayBuffer()
    inARow = r.status === 200 ? inARow + 1 : 0
    if (inARow === 0) await new Promise((resolve) => setTimeout(resolve, 100))
  }
}

/** The Node ceiling: the least a Node proxy can do (bench/node-proxy.mjs), in front of the upstream. */
export async function startNodeProxy(upstream: string): Promise<Peer> {
  const port = await freePort()
  const child = spawn(process.execPath, [NODE_PROXY, String(port), upstream], {
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  await waitFor(child, /listening on/)
  return {
    name: 'minimal Node proxy',
    url: `http://127.0.0.1:${port}`,
    model: 'fake-model',
    pid: child.pid,
    stop: () => kill(child),
  }
}

export async function startCaddy(upstream: string): Promise<Peer | undefined> {
  const port = await freePort()
  const dir = await mkdtemp(join(tmpdir(), 'svc-bench-caddy-'))
  const caddyfile = join(dir, 'Caddyfile')
  await writeFile(
    caddyfile,
    `{\n\tadmin off\n\tauto_https off\n}\n:${port} {\n\tbind 127.0.0.1\n\treverse_proxy ${new URL(upstream).host}\n}\n`,
  )
  let child: ChildProcess
  try {
    child = spawn('caddy', ['run', '--config', caddyfile, '--adapter', 'caddyfile'], {
      stdio: ['ignore', 'ignore', 'pipe'],
      env: { ...process.env, HOME: dir, XDG_DATA_HOME: dir, XDG_CONFIG_HOME: dir },
    })
    await waitFor(child, /serving initial configuration|server running/, 15_000)
  } catch {
    return undefined
  }
  return {
    name: 'Caddy reverse_proxy',
    url: `http://127.0.0.1:${port}`,
    model: 'fake-model',
    stop: async () => {
      await kill(child)
      await rm(dir, { recursive: true, force: true })
    },
  }
}

function waitFor(child: ChildProcess, pattern: RegExp, timeoutMs = 30_000): Promise<void> {
  return new Promise((resolve, reject) => {
    let out = ''
    const timer = setTimeout(() => reject(new Error(`timed out waiting for ${pattern}: ${out}`)), timeoutMs)
    const onData = (d: Buffer) => {
      out += d.toString()
      if (pattern.test(out)) {
        clearTimeout(timer)
        resolve()
      }
    }
    child.stdout?.on('data', onData)
    child.stderr?.on('data', onData)
    child.once('error', (e) => {
      clearTimeout(timer)
      reject(e)
    })
    child.once('exit', (code) => {
      clearTimeout(timer)
      reject(new Error(`exited with ${code}: ${out}`))
    })
  })
}

async function kill(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return
  const exited = new Promise((r) => child.once('exit', r))
  child.kill('SIGTERM')
  await exited
}
