/**
 * The processes the hop section measures: the fake upstream (the limit), and in front of it svc, the
 * minimal Node proxy and Caddy's reverse_proxy. All on 127.0.0.1, started and stopped here.
 */
import { type ChildProcess, spawn } from 'node:child_process'
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createTokenStore } from '@svc/auth'
import { freePort } from '@svc/providers/internals'
import { REPO_ROOT, startApi } from '@svc/testing'

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
  options: { auth?: boolean; env?: Record<string, string> } = {},
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

async function svcConfig(upstream: string, options: { auth?: boolean }) {
  const configDir = await mkdtemp(join(tmpdir(), 'svc-bench-config-'))
  await mkdir(join(configDir, 'slots'), { recursive: true })
  await writeFile(
    join(configDir, 'slots', 'bench.toml'),
    `provider = "llm"\nruntime = "remote"\nurl = "${upstream}"\nrestart = "no"\n`,
  )
  let token: string | undefined
  if (options.auth) {
    const store = createTokenStore({ configDir, watch: false, flushIntervalMs: 0 })
    token = (await store.create({ label: 'bench', scope: 'v1-only' })).token
    await store.close()
  }
  return { configDir, token }
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

export function waitFor(child: ChildProcess, pattern: RegExp, timeoutMs = 30_000): Promise<void> {
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

export async function kill(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return
  const exited = new Promise((r) => child.once('exit', r))
  child.kill('SIGTERM')
  await exited
}
