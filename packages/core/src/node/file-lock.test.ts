import { mkdir, mkdtemp, readdir, readFile, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { writeFileAtomic } from './atomic-write'
import { lockDirOf, withFileLock } from './file-lock'

describe('withFileLock', () => {
  it('serialises read-modify-write cycles so that no increment is lost', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'svc-lock-'))
    const file = join(dir, 'n')
    await writeFile(file, '0')
    await Promise.all(
      Array.from({ length: 40 }, () =>
        withFileLock(file, async () => {
          const n = Number(await readFile(file, 'utf8'))
          await new Promise((r) => setImmediate(r))
          await writeFileAtomic(file, String(n + 1))
        }),
      ),
    )
    expect(await readFile(file, 'utf8')).toBe('40')
  })

  it('does not count the lock entries of a process that no longer exists', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'svc-lock-'))
    const file = join(dir, 'x')
    const locks = lockDirOf(file)
    await mkdir(locks)
    // A dead pid, and a live pid (ours) whose start time says it is another process by now.
    await writeFile(join(locks, 't.000000000001.999999999.0.abc'), '')
    await writeFile(join(locks, `t.000000000001.${process.pid}.1.abc`), '')
    await expect(withFileLock(file, async () => 'ran', { timeoutMs: 500 })).resolves.toBe('ran')
  })

  it('waits for a live holder and names it when it gives up', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'svc-lock-'))
    const file = join(dir, 'x')
    let release = () => {}
    const holding = withFileLock(file, () => new Promise<void>((r) => (release = r)))
    await new Promise((r) => setTimeout(r, 20))
    await expect(withFileLock(file, async () => 'ran', { timeoutMs: 100 })).rejects.toThrow(
      new RegExp(`timed out waiting for the lock on ${file}: process ${process.pid} holds or waits for it`),
    )
    release()
    await holding
    await expect(withFileLock(file, async () => 'ran', { timeoutMs: 500 })).resolves.toBe('ran')
    expect(await readdir(dir)).toEqual([]) // the lock's directory goes with its last taker
  })
})
