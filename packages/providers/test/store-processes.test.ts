/**
 * The model registry and the voice store written by several processes at once (the API and CLI
 * runs), while other processes die holding the store's lock: no registration is lost, no voice name
 * is given twice.
 */
import { spawn } from 'node:child_process'
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { encodeGguf } from '@svc/testing'
import { afterEach, describe, expect, it } from 'vitest'

/** A header-only GGUF: what the store takes as a model file (model-header.ts). */
const GGUF = encodeGguf(new Map(), [])

const WRITER = fileURLToPath(new URL('./fixtures/store-writer.ts', import.meta.url))

const dirs: string[] = []
afterEach(async () => {
  await Promise.all(dirs.splice(0).map((d) => rm(d, { recursive: true, force: true })))
})

/** Runs the writer in its own node process (not the tsx wrapper: its pid is the writer's). */
function run(args: string[]) {
  const child = spawn(process.execPath, ['--import', 'tsx', WRITER, ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let out = ''
  let err = ''
  child.stdout.on('data', (d: Buffer) => {
    out += d.toString()
  })
  child.stderr.on('data', (d: Buffer) => {
    err += d.toString()
  })
  return new Promise<{ out: string; err: string; code: number | null; signal: string | null }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ out, err, code, signal })),
  )
}

/** Processes that die holding the lock on `path`, one after another, until `until` settles. */
async function dieHolding(path: string, until: Promise<unknown>): Promise<number> {
  let settled = false
  void until.finally(() => {
    settled = true
  })
  let deaths = 0
  while (!settled) {
    const r = await run(['die', path])
    expect(r.signal, r.err).toBe('SIGKILL')
    deaths++
  }
  return deaths
}

async function tempDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'svc-stores-'))
  dirs.push(dir)
  return dir
}

describe('stores written by several processes', () => {
  it('keeps every registration of 4 processes in registry.json while others die holding its lock', async () => {
    const stateDir = await tempDir()
    await mkdir(join(stateDir, 'files'))
    const prefixes = ['a', 'b', 'c', 'd']
    for (const p of prefixes)
      for (let i = 0; i < 15; i++) await writeFile(join(stateDir, 'files', `${p}-${i}.gguf`), GGUF)
    const writers = Promise.all(prefixes.map((p) => run(['registry', stateDir, p, '15'])))
    const deaths = await dieHolding(join(stateDir, 'models', 'registry.json'), writers)
    for (const r of await writers) expect([r.code, r.out], r.err).toEqual([0, '+'.repeat(15)])
    expect(deaths).toBeGreaterThan(0)
    const registry = JSON.parse(await readFile(join(stateDir, 'models', 'registry.json'), 'utf8'))
    const ids = registry.models.map((m: { id: string }) => m.id).sort()
    expect(ids).toEqual(prefixes.flatMap((p) => Array.from({ length: 15 }, (_, i) => `${p}-${i}`)).sort())
  }, 180_000)

  it('gives each voice name to one of 4 processes adding the same names, while others die holding the lock', async () => {
    const dir = await tempDir()
    const names = Array.from({ length: 12 }, (_, i) => `voice-${i}`)
    const writers = Promise.all(
      [0, 1, 2, 3].map((k) => run(['voices', dir, ...(k % 2 ? [...names].reverse() : names)])),
    )
    const deaths = await dieHolding(join(dir, 'voices'), writers)
    const added = (await writers).flatMap((r) => {
      expect(r.code, r.err).toBe(0)
      return JSON.parse(r.out) as string[]
    })
    expect(deaths).toBeGreaterThan(0)
    expect(added.sort()).toEqual([...names].sort())
    expect((await readdir(dir)).filter((f) => f.endsWith('.json')).sort()).toEqual(
      names.map((n) => `${n}.json`).sort(),
    )
  }, 180_000)
})
