import { spawn } from 'node:child_process'
import { mkdtemp, readdir, readFile, rm, stat } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterEach, describe, expect, it } from 'vitest'
import { parseTokensFile } from '../src/tokens-file'

const ROOT = fileURLToPath(new URL('../../../', import.meta.url))
const TSX = join(ROOT, 'node_modules/.bin/tsx')
const WORKER = fileURLToPath(new URL('./fixtures/store-worker.ts', import.meta.url))
const DIE_HOLDING = fileURLToPath(new URL('./fixtures/die-holding.ts', import.meta.url))

/** Processes that take the lock on `path` and die holding it, one after another, until `until` settles. */
async function dieHolding(path: string, until: Promise<unknown>): Promise<number> {
  let settled = false
  void until.finally(() => {
    settled = true
  })
  let deaths = 0
  while (!settled) {
    // node itself, not the tsx wrapper: the process holding the lock is the one that dies.
    const child = spawn(process.execPath, ['--import', 'tsx', DIE_HOLDING, path], { stdio: 'ignore' })
    const signal = await new Promise((resolve) => child.once('exit', (_code, sig) => resolve(sig)))
    expect(signal).toBe('SIGKILL')
    deaths++
  }
  return deaths
}

interface WorkerResult {
  created: string[]
  revoked: string[]
}

function startWorker(configDir: string, name: string, count: number) {
  const child = spawn(TSX, [WORKER, configDir, name, String(count)], { stdio: ['pipe', 'pipe', 'pipe'] })
  let out = ''
  let err = ''
  child.stdout.on('data', (d: Buffer) => {
    out += d.toString()
  })
  child.stderr.on('data', (d: Buffer) => {
    err += d.toString()
  })
  const ready = new Promise<void>((resolve, reject) => {
    child.stdout.on('data', () => out.includes('ready\n') && resolve())
    child.once('exit', (code) => reject(new Error(`worker ${name} exited ${code} before ready: ${err}`)))
  })
  const done = new Promise<WorkerResult>((resolve, reject) => {
    child.once('exit', (code) => {
      if (code !== 0) reject(new Error(`worker ${name} exited ${code}: ${err}`))
      else resolve(JSON.parse(out.slice(out.indexOf('ready\n') + 6)) as WorkerResult)
    })
  })
  return { child, ready, done, go: () => child.stdin.write('go\n') }
}

const dirs: string[] = []
afterEach(async () => {
  await Promise.all(dirs.splice(0).map((d) => rm(d, { recursive: true, force: true })))
})

describe('tokens.toml with two writing processes', () => {
  it('loses nothing when 200 creates and 100 revokes race from two processes', async () => {
    const configDir = await mkdtemp(join(tmpdir(), 'svc-race-'))
    dirs.push(configDir)
    const workers = [startWorker(configDir, 'a', 100), startWorker(configDir, 'b', 100)]
    try {
      await Promise.all(workers.map((w) => w.ready))
      for (const w of workers) w.go()
      const results = await Promise.all(workers.map((w) => w.done))

      const created = results.flatMap((r) => r.created)
      const revoked = new Set(results.flatMap((r) => r.revoked))
      expect(created).toHaveLength(200)
      expect(new Set(created).size).toBe(200)
      expect(revoked.size).toBe(100)

      const path = join(configDir, 'tokens.toml')
      const file = parseTokensFile(await readFile(path, 'utf8'), path)
      if (!file.ok) throw new Error(file.error)
      expect(file.records.map((r) => r.id).sort()).toEqual(created.filter((id) => !revoked.has(id)).sort())
      expect((await stat(path)).mode & 0o777).toBe(0o600)
      expect(await readdir(configDir)).toEqual(['tokens.toml']) // no temp file, no lock left behind
    } finally {
      for (const w of workers) if (w.child.exitCode === null) w.child.kill()
    }
  }, 120_000)

  it('never undoes a revoke when three processes create and revoke while others die holding the lock', async () => {
    const configDir = await mkdtemp(join(tmpdir(), 'svc-race-'))
    dirs.push(configDir)
    const workers = ['a', 'b', 'c'].map((name) => startWorker(configDir, name, 40))
    try {
      await Promise.all(workers.map((w) => w.ready))
      for (const w of workers) w.go()
      const all = Promise.all(workers.map((w) => w.done))
      const deaths = await dieHolding(join(configDir, 'tokens.toml'), all)
      const results = await all
      expect(deaths).toBeGreaterThan(0)
      const created = results.flatMap((r) => r.created)
      const revoked = new Set(results.flatMap((r) => r.revoked))
      expect(revoked.size).toBe(60)
      const path = join(configDir, 'tokens.toml')
      const file = parseTokensFile(await readFile(path, 'utf8'), path)
      if (!file.ok) throw new Error(file.error)
      expect(file.records.map((r) => r.id).sort()).toEqual(created.filter((id) => !revoked.has(id)).sort())
    } finally {
      for (const w of workers) if (w.child.exitCode === null) w.child.kill()
    }
  }, 180_000)
})
