/**
 * @svc/core's cross-process lock (withFileLock) against real processes: writers in separate Node
 * processes, some of which die (SIGKILL) while they hold the lock, so that every waiter races to get
 * past a dead holder. (Here, not in packages/core: core's own files may not spawn processes.)
 */
import { type ChildProcess, spawn } from 'node:child_process'
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterEach, describe, expect, it } from 'vitest'

const WORKER = fileURLToPath(new URL('./fixtures/lock-worker.ts', import.meta.url))

const children: ChildProcess[] = []
const dirs: string[] = []
afterEach(async () => {
  for (const c of children.splice(0)) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL')
  await Promise.all(dirs.splice(0).map((d) => rm(d, { recursive: true, force: true })))
})

/** One writer process; resolves with how many increments it wrote and how it ended. */
function writer(file: string, count: number, dieRate: number) {
  // node itself, not the tsx wrapper (which would run the script in a second process).
  const child = spawn(process.execPath, ['--import', 'tsx', WORKER, file, String(count), String(dieRate)], {
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  children.push(child)
  let out = ''
  let err = ''
  child.stdout!.on('data', (d: Buffer) => {
    out += d.toString()
  })
  child.stderr!.on('data', (d: Buffer) => {
    err += d.toString()
  })
  return new Promise<{ wrote: number; code: number | null; signal: string | null; err: string }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ wrote: out.length, code, signal, err })),
  )
}

/** Runs `total` writers, `parallel` at a time, and sums what they wrote. */
async function runWriters(
  file: string,
  options: { total: number; parallel: number; count: number; dieRate: number },
) {
  let wrote = 0
  let died = 0
  let next = 0
  const lane = async () => {
    while (next < options.total) {
      next++
      const r = await writer(file, options.count, options.dieRate)
      if (r.signal === 'SIGKILL') died++
      else expect(r.code, r.err).toBe(0)
      wrote += r.wrote
    }
  }
  await Promise.all(Array.from({ length: options.parallel }, lane))
  return { wrote, died }
}

describe('withFileLock across processes', () => {
  it('loses no increment from 5 writing processes at a time, some dying while they hold the lock', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'svc-lock-procs-'))
    dirs.push(dir)
    const file = join(dir, 'counter')
    await writeFile(file, '0')
    const { wrote, died } = await runWriters(file, { total: 20, parallel: 5, count: 40, dieRate: 0.08 })
    expect(died).toBeGreaterThan(5)
    expect(Number(await readFile(file, 'utf8'))).toBe(wrote)
    // Nothing left behind but the lock's hidden entries of the dead: no temp file.
    expect((await readdir(dir)).filter((n) => !n.startsWith('.counter.lock'))).toEqual(['counter'])
  }, 240_000)
})
