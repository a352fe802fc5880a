/**
 * Faults suite: a pull that runs out of disk. `<state>/models` is a 2 MiB tmpfs the test
 * mounts (root only; elsewhere the part is reported missing), the model is served by a real HTTP
 * server, the API is the real process. The pull must fail with a clear `lastError`, keep the `.part`
 * file for resume, leave the registry and the other models intact, fail the same clear way when
 * retried while the disk is still full, and resume (Range) and verify once there is room.
 */
import { execFile } from 'node:child_process'
import { createHash } from 'node:crypto'
import { mkdir, mkdtemp, readdir, readFile, rm, stat } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import {
  type ApiProcess,
  type FileServer,
  fillerGguf,
  missingPart,
  serveFiles,
  startApi,
  writeSvcConfig,
} from '@svc/testing'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { call, requestLoad, type SlotBody } from '../live'

const exec = promisify(execFile)
const FIXTURE = fileURLToPath(new URL('../fixtures/echo-provider.ts', import.meta.url))

/** Mounts a size-limited tmpfs at `dir`; false when this machine does not let the test do that. */
async function mountTmpfs(dir: string, size: string): Promise<boolean> {
  if (process.getuid?.() !== 0) return false
  return exec('mount', ['-t', 'tmpfs', '-o', `size=${size},mode=0755`, 'svc-test-tmpfs', dir]).then(
    () => true,
    () => false,
  )
}

const probe = await mkdtemp(join(tmpdir(), 'svc-tmpfs-probe-'))
const canMount = await mountTmpfs(probe, '64k')
if (canMount) await exec('umount', [probe])
await rm(probe, { recursive: true, force: true })
if (!canMount) missingPart('a small tmpfs', 'run the tests as root where mount -t tmpfs is allowed')

const sha = (data: Buffer) => createHash('sha256').update(data).digest('hex')

describe.skipIf(!canMount)('a pull that runs out of disk', () => {
  // Model files (svc checks a download's GGUF header) of random bytes.
  const small = fillerGguf(100 * 1024)
  const big = fillerGguf(3 * 1024 * 1024)
  let dir: string
  let models: string
  let mounted = false
  let files: FileServer
  let api: ApiProcess

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'svc-faults-disk-'))
    models = join(dir, 'state', 'models')
    await mkdir(models, { recursive: true })
    mounted = await mountTmpfs(models, '2m')
    expect(mounted).toBe(true)
    await writeSvcConfig(join(dir, 'config'), { slots: { echo: 'provider = "echo"\nrestart = "no"\n' } })
    files = await serveFiles({ '/m/small.gguf': small, '/m/big.gguf': big })
    api = await startApi({
      configDir: join(dir, 'config'),
      stateDir: join(dir, 'state'),
      env: { SVC_PROVIDER_MODULES: FIXTURE },
    })
  }, 60_000)

  afterAll(async () => {
    await api?.[Symbol.asyncDispose]()
    await files?.[Symbol.asyncDispose]()
    if (mounted) await exec('umount', [models])
    if (dir) await rm(dir, { recursive: true, force: true })
  })

  const load = (model: string) =>
    requestLoad(api, 'echo', { model, sha256: sha(model.endsWith('big.gguf') ? big : small) })
  const registry = async () =>
    (JSON.parse(await readFile(join(models, 'registry.json'), 'utf8')) as { models: { id: string }[] }).models
      .map((m) => m.id)
      .sort()
  const partSize = async () => (await stat(join(models, 'big', 'big.gguf.part'))).size

  it('fails with a clear error, keeps the part and everything else, and resumes once there is room', async () => {
    expect((await load(`${files.url}/m/small.gguf`)).status).toBe(200)
    await call(api, '/api/slots/echo/unload?wait=true', { method: 'POST' })

    const full = await load(`${files.url}/m/big.gguf`)
    expect(full.status).toBe(502)
    expect(full.body.error?.message).toMatch(/the disk is full \(ENOSPC\).*resumes on the next load/)
    const slot = (await call<SlotBody>(api, '/api/slots/echo')).body
    expect(slot).toMatchObject({ state: 'offline', model: null })
    expect(slot.lastError).toMatch(/big\.gguf failed after \d+ bytes: the disk is full/)
    const kept = await partSize()
    expect(kept).toBeGreaterThan(1024 * 1024)
    expect(kept).toBeLessThan(big.length)
    expect(await registry()).toEqual(['big', 'small'])
    expect(sha(await readFile(join(models, 'small', 'small.gguf')))).toBe(sha(small))

    // Again while still full: the same clear failure, nothing lost.
    const again = await load(`${files.url}/m/big.gguf`)
    expect(again.status).toBe(502)
    expect(again.body.error?.message).toMatch(/the disk is full/)
    expect(await partSize()).toBeGreaterThanOrEqual(kept)
    expect(await registry()).toEqual(['big', 'small'])

    await exec('mount', ['-o', 'remount,size=16m', models])
    const resumed = await load(`${files.url}/m/big.gguf`)
    expect(resumed.status, JSON.stringify(resumed.body)).toBe(200)
    expect(resumed.body.state).toBe('ready')
    expect(files.requests.at(-1)).toMatchObject({
      path: '/m/big.gguf',
      range: expect.stringMatching(/^bytes=\d+-$/),
    })
    expect(sha(await readFile(join(models, 'big', 'big.gguf')))).toBe(sha(big))
    expect(await readdir(join(models, 'big'))).toEqual(['big.gguf'])
    expect(sha(await readFile(join(models, 'small', 'small.gguf')))).toBe(sha(small))
    await call(api, '/api/slots/echo/unload?wait=true', { method: 'POST' })
  }, 120_000)
})
