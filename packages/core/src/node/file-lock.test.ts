import { mkdtemp, readFile, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { writeFileAtomic } from './atomic-write'
import { withFileLock } from './file-lock'

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

  it('takes over a lock left by a process that no longer exists', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'svc-lock-'))
    const file = join(dir, 'x')
    await writeFile(`${file}.lock`, '999999999\n')
    await expect(withFileLock(file, async () => 'ran', { timeoutMs: 500 })).resolves.toBe('ran')
  })
})
