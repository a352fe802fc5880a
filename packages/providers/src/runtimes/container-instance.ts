import { randomBytes } from 'node:crypto'
import { link, mkdir, readFile, unlink, writeFile } from 'node:fs/promises'
import { join } from 'node:path'

/**
 * This svc's instance id (`svc.instance` on its containers): 16 hex characters kept in
 * `<state>/instance-id`, created on first use. Stable across restarts, so `recover` tells the
 * containers this installation made from anyone else's. Concurrent first calls agree: the id is written
 * whole to a file of its own, then hard-linked into place, which fails when another call got there first
 * (an exclusive create followed by a write would let a second caller read the file empty).
 */
export async function loadInstanceId(stateDir: string): Promise<string> {
  const path = join(stateDir, 'instance-id')
  const read = async () => (await readFile(path, 'utf8')).trim()
  try {
    const id = await read()
    if (/^[0-9a-f]{16}$/.test(id)) return id
  } catch {
    // first run
  }
  await mkdir(stateDir, { recursive: true })
  const fresh = randomBytes(8).toString('hex')
  const staged = `${path}.${fresh}.tmp`
  await writeFile(staged, `${fresh}\n`, { mode: 0o644 })
  try {
    await link(staged, path)
    return fresh
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error
    const id = await read()
    if (/^[0-9a-f]{16}$/.test(id)) return id
    throw new Error(`${path} does not hold an instance id (16 hex characters); remove it to make a new one`)
  } finally {
    await unlink(staged).catch(() => undefined)
  }
}
