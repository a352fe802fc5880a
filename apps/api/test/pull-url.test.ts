/**
 * Through the real API and CLI: loading a model from a URL never writes outside
 * the models directory, a bad `%` escape is a 400 (not a 500), and the optional `sha256` is taken
 * from the API body, the CLI (`--sha256`) and the slot file (`[model] sha256`). The upstream is the
 * fake-upstream program behind a third-party provider (it serves any file); the files come from a
 * real HTTP server.
 */
import { createHash } from 'node:crypto'
import { mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { type ApiProcess, type FileServer, fillerGguf, serveFiles, startApi } from '@svc/testing'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { call, cli, type SlotBody, waitForSlot } from './live'

const FIXTURE = fileURLToPath(new URL('./fixtures/echo-provider.ts', import.meta.url))
const weights = fillerGguf(64_000) // a GGUF of random bytes: svc checks a download's header
const sha = createHash('sha256').update(weights).digest('hex')
const ESCAPE = '/m/..%2F..%2F..%2Fescaped.gguf'

describe('loading models from URLs', () => {
  let files: FileServer
  let scratch: string
  let api: ApiProcess

  beforeAll(async () => {
    files = await serveFiles({
      '/m/echo-weights.gguf': weights,
      '/m/pinned-weights.gguf': weights,
      [ESCAPE]: weights,
    })
    scratch = await mkdtemp(join(tmpdir(), 'svc-pull-url-'))
    const configDir = join(scratch, 'config')
    const stateDir = join(scratch, 'state')
    await mkdir(join(configDir, 'slots'), { recursive: true })
    await mkdir(stateDir)
    // A slot file whose default model comes from a URL with a sha256 it does not have.
    await writeFile(
      join(configDir, 'slots', 'pinned.toml'),
      `provider = "echo"\nenabled = true\n[model]\ndefault = "${files.url}/m/pinned-weights.gguf"\nsha256 = "${'c'.repeat(64)}"\n`,
    )
    await writeFile(join(configDir, 'slots', 'echo.toml'), 'provider = "echo"\n')
    api = await startApi({ configDir, stateDir, env: { SVC_PROVIDER_MODULES: FIXTURE } })
  }, 60_000)

  afterAll(async () => {
    await api?.[Symbol.asyncDispose]()
    await files?.[Symbol.asyncDispose]()
    if (scratch) await rm(scratch, { recursive: true, force: true })
  })

  const load = (slot: string, json: Record<string, unknown>) =>
    call<SlotBody & { error?: { code: string; param: string | null; message: string } }>(
      api,
      `/api/slots/${slot}/load?wait=true`,
      { method: 'POST', json },
    )

  it('answers a URL with a bad % escape with 400 request.invalid', async () => {
    const r = await load('echo', { model: `${files.url}/m/bad%zz.gguf` })
    expect(r.status).toBe(400)
    expect(r.body.error).toMatchObject({ code: 'request.invalid', param: 'model' })
  })

  it('keeps a file named ..%2F..%2F inside the models directory', async () => {
    const r = await load('echo', { model: `${files.url}${ESCAPE}` })
    expect(r.status).toBe(200)
    expect(await readdir(scratch)).toEqual(['config', 'state'])
    expect(await readdir(join(scratch, 'state', 'models', 'escaped'))).toEqual(['_.._.._escaped.gguf'])
    await call(api, '/api/slots/echo/unload?wait=true', { method: 'POST' })
  })

  it('refuses a sha256 that is not 64 hex digits, or that comes without a URL', async () => {
    const bad = await load('echo', { model: `${files.url}/m/echo-weights.gguf`, sha256: 'xyz' })
    expect(bad.status).toBe(400)
    expect(bad.body.error).toMatchObject({ code: 'request.invalid', param: 'sha256' })
    const local = await load('echo', { model: 'echo-weights', sha256: sha })
    expect(local.status).toBe(400)
    expect(local.body.error).toMatchObject({ code: 'request.invalid', param: 'sha256' })
  })

  it('fails a pull whose sha256 does not match, keeping nothing, and loads with the right one (CLI)', async () => {
    const wrong = await load('echo', { model: `${files.url}/m/echo-weights.gguf`, sha256: 'd'.repeat(64) })
    expect(wrong.status).toBe(502)
    expect(wrong.body.error?.message).toMatch(/checksum mismatch/)
    const slot = await waitForSlot(api, 'echo', (s) => s.state === 'offline')
    expect(slot.lastError).toMatch(/checksum mismatch/)
    expect(await readdir(join(scratch, 'state', 'models', 'echo-weights'))).toEqual([])
    const ok = await cli(api, [
      'slot',
      'load',
      'echo',
      '--model',
      `${files.url}/m/echo-weights.gguf`,
      '--sha256',
      sha,
    ])
    expect(ok.stderr).toBe('')
    expect(ok.code).toBe(0)
    expect(ok.stdout).toMatch(/echo is ready with echo-weights/)
  }, 30_000)

  it('applies [model] sha256 from the slot file to the default load at start', async () => {
    const slot = await waitForSlot(api, 'pinned', (s) => s.state === 'offline' && s.lastError !== null)
    expect(slot.lastError).toMatch(/checksum mismatch \(expected sha256 c{64}/)
    expect(await readdir(join(scratch, 'state', 'models', 'pinned-weights'))).toEqual([])
  })
})
