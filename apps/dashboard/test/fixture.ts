/**
 * Everything the end-to-end suite drives, real: the dashboard built from this checkout (Vite, into a
 * temp folder), the API as a child process with auth on, llama-server with a tiny GGUF served by a
 * local file server behind a gate a test can hold (so a load from the UI really pulls it, for as
 * long as the test needs), espeak-ng in the tts slot, and the
 * ComfyUI stand-in as a remote `img` slot. Tokens are minted straight into tokens.toml.
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { createTokenStore } from '@svc/auth'
import {
  type ApiProcess,
  type ComfyStandIn,
  chromiumAvailable,
  type FileServer,
  programAvailable,
  REPO_ROOT,
  requireLlamaServer,
  serveFiles,
  startApi,
  startComfyStandIn,
  writeSvcConfig,
  writeTinyGguf,
} from '@svc/testing'
import { build } from 'vite'
import { type PullGate, startPullGate } from './pull-gate'

const DASHBOARD_ROOT = fileURLToPath(new URL('..', import.meta.url))
export const SDXL = 'sdxl-turbo/sd_xl_turbo_1.0_fp16.safetensors'
/** Cheap argon2id for minted tokens (verification reads the cost from the hash). */
const FAST_HASH = { memoryCost: 256, timeCost: 1, parallelism: 1 }

export interface Fixture extends AsyncDisposable {
  api: ApiProcess
  comfy: ComfyStandIn
  /** Between the catalogue's tiny models and their file server: `hold()` keeps a pull pulling. */
  gate: PullGate
  /** The build the API serves. */
  dist: string
  tokens: { admin: string; readOnly: string }
  /** Loads `model` into `slot` and waits until it is ready (fails with the API's log otherwise). */
  load(slot: string, model: string): Promise<void>
  /** Calls the API as admin (bearer). */
  call(path: string, init?: RequestInit & { json?: unknown; token?: string }): Promise<Response>
}

/**
 * Builds the dashboard from this checkout into `outDir`: the production build, as `pnpm build`
 * makes it (vitest runs with NODE_ENV=test, which would make the Preact preset add its debug
 * tooling). For `SVC_DASHBOARD_DIR`.
 */
export async function buildDashboard(outDir: string): Promise<void> {
  const env = process.env.NODE_ENV
  process.env.NODE_ENV = 'production'
  try {
    await build({
      root: DASHBOARD_ROOT,
      mode: 'production',
      logLevel: 'warn',
      build: { outDir, emptyOutDir: true },
    })
  } finally {
    process.env.NODE_ENV = env
  }
}

export async function startFixture(): Promise<Fixture> {
  const dir = await mkdtemp(join(tmpdir(), 'svc-dashboard-e2e-'))
  const dist = join(dir, 'dist')
  await buildDashboard(dist)

  // Big enough that a reply of 8000 tokens takes many seconds on one thread (so Stop lands mid-stream).
  const model = await writeTinyGguf(join(dir, 'tiny-chat.gguf'), {
    role: 'chat',
    nEmbd: 256,
    nLayer: 4,
    nFf: 1024,
    contextLength: 8192,
    tensorType: 'f16',
  })
  const weights = await readFile(model.path)
  const files: FileServer = await serveFiles({ '/tiny-chat.gguf': weights, '/tiny-extra.gguf': weights })
  const gate = await startPullGate(files.url)
  const shipped = await readFile(join(REPO_ROOT, 'manifests/models.toml'), 'utf8')
  const catalogue = join(dir, 'models.toml')
  await writeFile(
    catalogue,
    `${shipped}
[[model]]
id = "tiny-chat"
provider = "llm"
format = "gguf"
role = "chat"
url = "${gate.url}/tiny-chat.gguf"
size = ${model.bytes}
badge = "test · tiny"
license = "mit"
license_url = "https://opensource.org/license/mit"
description = "A random-weight model for the dashboard's tests."

[[model]]
id = "tiny-extra"
provider = "llm"
format = "gguf"
role = "chat"
url = "${gate.url}/tiny-extra.gguf"
size = ${model.bytes}
license = "mit"
license_url = "https://opensource.org/license/mit"
`,
  )
  const configDir = await writeSvcConfig(join(dir, 'config'), {
    slots: { primary: 'args = ["-c", "8192", "-np", "1", "--threads", "1"]\n' },
  })
  const store = createTokenStore({ configDir, watch: false, flushIntervalMs: 0, hashParams: FAST_HASH })
  const admin = (await store.create({ label: 'e2e-admin', scope: 'admin' })).token
  const readOnly = (await store.create({ label: 'e2e-reader', scope: 'read-only' })).token
  await store.close()

  const comfy = await startComfyStandIn({ checkpoints: [SDXL] })
  const api = await startApi({
    configDir,
    stateDir: join(dir, 'state'),
    env: {
      SVC_AUTH_ENABLED: '1',
      SVC_MODELS_MANIFEST: catalogue,
      SVC_DASHBOARD_DIR: dist,
      SVC_LOG_LEVEL: 'info',
    },
  })
  const call: Fixture['call'] = (path, init = {}) => {
    const { json, token, ...rest } = init
    // Bounded, so a call that never answers fails its test with the path instead of its timeout.
    return fetch(api.url + path, {
      signal: AbortSignal.timeout(90_000),
      ...rest,
      headers: {
        authorization: `Bearer ${token ?? admin}`,
        ...(json !== undefined ? { 'content-type': 'application/json' } : {}),
        ...(rest.headers as Record<string, string>),
      },
      ...(json !== undefined ? { body: JSON.stringify(json) } : {}),
    })
  }
  return {
    api,
    comfy,
    gate,
    dist,
    tokens: { admin, readOnly },
    call,
    async load(slot, model) {
      await expectStatus(
        call(`/api/slots/${slot}/load?wait=true`, { method: 'POST', json: { model } }),
        200,
        api,
      )
    },
    async [Symbol.asyncDispose]() {
      await api[Symbol.asyncDispose]()
      await comfy.close()
      await gate[Symbol.asyncDispose]()
      await files[Symbol.asyncDispose]()
      await rm(dir, { recursive: true, force: true })
    },
  }
}

/** Fails with the API's log when a management call does not answer as expected. */
export async function expectStatus(res: Response | Promise<Response>, status: number, api: ApiProcess) {
  const r = await res
  if (r.status !== status)
    throw new Error(
      `${r.url} answered ${r.status}, not ${status}: ${await r.text()}\n${api.output().slice(-3000)}`,
    )
  return r
}

/** Whether every real part is here; a missing one fails in CI and skips loudly elsewhere. */
export function partsPresent(): boolean {
  return [
    chromiumAvailable(),
    Boolean(requireLlamaServer()),
    programAvailable('espeak-ng', 'run ./scripts/setup.sh (apt: espeak-ng)'),
    programAvailable('ffmpeg', 'run ./scripts/setup.sh (apt: ffmpeg)'),
  ].every((p) => p === true)
}
