/**
 * svc in front of a real llama-server for the engine section: the built API with auth on, one slot
 * `primary` running the tiny GGUF as a host process (`--parallel 4`), and the calls the section
 * makes (load, unload, the slot's upstream).
 */
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createTokenStore } from '@svc/auth'
import { type ApiProcess, llamaKeyHeaders, startApi, writeTinyGguf } from '@svc/testing'

/** What the slot passes llama-server (and what the by-hand runs reuse, read from the process). */
export const ENGINE_ARGS = ['-c', '2048', '-np', '4', '--threads', '1']

export interface EngineSvc {
  api: ApiProcess
  /** Headers of inference requests (a `v1-only` bearer token). */
  headers: Record<string, string>
  models: { a: string; b: string }
  /** Loads `model` into `primary` and resolves once it is ready (`?wait=true`), in ms. */
  load(model: string): Promise<number>
  unload(): Promise<void>
  /** The running upstream: its base URL and pid. */
  upstream(): Promise<{ base: string; pid: number; headers: Record<string, string> }>
  stop(): Promise<void>
}

export async function startEngineSvc(): Promise<EngineSvc> {
  const dir = await mkdtemp(join(tmpdir(), 'svc-bench-engine-'))
  const configDir = join(dir, 'config')
  await mkdir(join(configDir, 'slots'), { recursive: true })
  await writeFile(
    join(configDir, 'slots', 'primary.toml'),
    `runtime = "process"\nbackend = "cpu"\nrestart = "no"\nargs = ${JSON.stringify(ENGINE_ARGS)}\n`,
  )
  // Two models for the swap: the same shape, other weights.
  const a = (await writeTinyGguf(join(dir, 'tiny-a.gguf'), { role: 'chat', seed: 1 })).path
  const b = (await writeTinyGguf(join(dir, 'tiny-b.gguf'), { role: 'chat', seed: 2 })).path
  const store = createTokenStore({ configDir, watch: false, flushIntervalMs: 0 })
  const { token } = await store.create({ label: 'bench', scope: 'v1-only' })
  await store.close()
  const api = await startApi({
    configDir,
    built: true,
    env: { SVC_AUTH_ENABLED: '1', SVC_LOG_LEVEL: 'info', SVC_UNLOAD_GRACE: '5' },
  })
  // Management calls as the trusted proxy would make them (loopback is trusted): an admin.
  const admin = { 'content-type': 'application/json', 'x-forwarded-email': 'bench@localhost' }
  const call = async (path: string, body?: unknown) => {
    const res = await fetch(`${api.url}${path}`, {
      method: body === undefined ? 'GET' : 'POST',
      headers: admin,
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    })
    const text = await res.text()
    if (!res.ok) throw new Error(`${path}: ${res.status} ${text}`)
    return JSON.parse(text) as Record<string, unknown>
  }
  return {
    api,
    headers: { authorization: `Bearer ${token}` },
    models: { a, b },
    async load(model) {
      const began = performance.now()
      await call('/api/slots/primary/load?wait=true', { model })
      return performance.now() - began
    },
    async unload() {
      await call('/api/slots/primary/unload?wait=true', {})
    },
    async upstream() {
      const slot = (await call('/api/slots/primary')) as { upstream: { base: string; pid: number } | null }
      if (!slot.upstream) throw new Error('primary has no upstream')
      // svc gives the upstream a key of its own; the direct path must send it as svc does.
      return { ...slot.upstream, headers: await llamaKeyHeaders(slot.upstream.pid) }
    },
    async stop() {
      await api.stop()
      await rm(dir, { recursive: true, force: true })
    },
  }
}
