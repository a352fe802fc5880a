/**
 * The processes a benchmark run measures: the fake upstream (the limit), svc in front of it, and
 * Caddy's reverse_proxy in front of it (the peer). All on 127.0.0.1, started and stopped here.
 */
import { type ChildProcess, spawn } from 'node:child_process'
import { mkdir, mkdtemp, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { freePort } from '@svc/providers/internals'
import { REPO_ROOT, startApi } from '@svc/testing'

export interface Peer {
  name: string
  url: string
  /** The `model` to send. */
  model: string
  headers?: Record<string, string>
  stop(): Promise<void>
}

const FAKE = join(REPO_ROOT, 'packages/testing/bin/fake-upstream.mjs')

export async function startFakeUpstream(args: string[] = []): Promise<Peer> {
  const port = await freePort()
  const child = spawn(process.execPath, [FAKE, '--port', String(port), ...args], {
    stdio: ['ignore', 'pipe', 'inherit'],
  })
  await waitFor(child, /listening on (http:\/\/\S+)/)
  return { name: 'direct', url: `http://127.0.0.1:${port}`, model: 'fake-model', stop: () => kill(child) }
}

/**
 * svc with a remote slot `bench` pointing at the upstream. With `auth`, auth is on and requests carry
 * a bearer token minted for the config dir before svc starts (what `svc token create` does offline).
 */
export async function startSvc(
  upstream: string,
  auth?: { token: (configDir: string) => Promise<string> },
): Promise<Peer> {
  const configDir = await mkdtemp(join(tmpdir(), 'svc-bench-config-'))
  await mkdir(join(configDir, 'slots'), { recursive: true })
  await writeFile(
    join(configDir, 'slots', 'bench.toml'),
    `provider = "llm"\nruntime = "remote"\nurl = "${upstream}"\nrestart = "no"\n`,
  )
  const token = auth ? await auth.token(configDir) : undefined
  const api = await startApi({
    configDir,
    env: { SVC_LOG_LEVEL: 'info', ...(auth ? { SVC_AUTH_ENABLED: '1' } : {}) },
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
    stop: async () => void (await api.stop()),
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
    stop: () => kill(child),
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
