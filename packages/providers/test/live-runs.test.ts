import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { liveRuns, registerLiveRun } from '../src/runtimes/live-runs'

const dirs: string[] = []
afterEach(async () => {
  for (const d of dirs.splice(0)) await rm(d, { recursive: true, force: true })
})

describe('the svc processes running on a state dir', () => {
  it('names the live ones, not this one to itself, and forgets a crashed one', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'svc-live-'))
    dirs.push(dir)
    const me = await registerLiveRun(dir)
    // Another svc on the same state dir: here the parent of this test process, which is alive.
    const other = await registerLiveRun(dir, process.ppid)
    // A crashed svc: its pid may be reused by anything, but not with the start time it recorded.
    await writeFile(
      join(dir, 'live', '999999.json'),
      JSON.stringify({ pid: 999_999, startTicks: 1, bootId: 'gone', startedAt: '' }),
    )
    expect(await me.others()).toEqual([process.ppid])
    expect((await liveRuns(dir)).sort()).toEqual([process.pid, process.ppid].sort())
    expect(await readdir(join(dir, 'live'))).not.toContain('999999.json')
    await other.release()
    expect(await me.others()).toEqual([])
    await me.release()
    expect(await readdir(join(dir, 'live'))).toEqual([])
  })
  it('does not keep svc from starting when it cannot record itself, and says why', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'svc-live-'))
    dirs.push(dir)
    await writeFile(join(dir, 'live'), 'not a directory')
    const run = await registerLiveRun(dir)
    expect(run.problem).toMatch(/cannot record this svc in .*live/)
    expect(await run.others()).toEqual([])
  })
})
