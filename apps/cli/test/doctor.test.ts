/**
 * `svc doctor containers` against a real Docker Engine: containers labelled as svc instances leave them (a
 * removed state dir, a regenerated instance id, a running svc, a stopped one, an older svc's), and
 * only the orphans go, and only on request.
 */
import { randomBytes } from 'node:crypto'
import { mkdir, writeFile } from 'node:fs/promises'
import { hostname } from 'node:os'
import { join } from 'node:path'
import { registerLiveRun } from '@svc/providers/internals'
import {
  buildRootfsImage,
  docker,
  ensureDockerEngine,
  removeContainersByLabel,
  runSvc,
  skipUnless,
  tempDirs,
} from '@svc/testing'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

const run = randomBytes(4).toString('hex')
const dirs = tempDirs('svc-doctor-')
let image: string | undefined
let engine: Awaited<ReturnType<typeof ensureDockerEngine>> | undefined

beforeAll(async () => {
  engine = await ensureDockerEngine()
  if ('skip' in engine) return
  image = `svc-test/doctor:${run}`
  await buildRootfsImage({ tag: image, binaries: ['/usr/bin/sleep'] })
}, 120_000)
afterAll(async () => {
  await removeContainersByLabel(`svc.test=${run}`).catch(() => 0)
  if (image) await docker(['rmi', '-f', image]).catch(() => '')
  await dirs.removeAll()
})

/** A running container labelled the way an svc instance labels its upstream. */
async function upstream(name: string, labels: Record<string, string>): Promise<string> {
  const flags = Object.entries({
    'svc.managed': 'true',
    'svc.slot': 'primary',
    'svc.test': run,
    ...labels,
  }).flatMap(([k, v]) => ['--label', `${k}=${v}`])
  const id = await docker(['run', '-d', '--name', `${name}-${run}`, ...flags, image ?? '', 'sleep', '600'])
  return id.trim()
}

async function stateDir(instance: string): Promise<string> {
  const dir = await dirs.make()
  await mkdir(dir, { recursive: true })
  await writeFile(join(dir, 'instance-id'), `${instance}\n`)
  return dir
}

const exists = async (id: string) =>
  (await docker(['ps', '-aq', '--no-trunc', '--filter', `id=${id}`])).trim() !== ''

describe('svc doctor containers', () => {
  it('names every svc container with what will take care of it, and removes only the orphans on request', async (ctx) => {
    skipUnless(ctx, engine)
    const host = hostname()
    const running = await stateDir('1111111111111111')
    const live = await registerLiveRun(running) // this test process plays the running svc
    const stopped = await stateDir('2222222222222222')
    const regenerated = await stateDir('3333333333333333')
    const gone = join(await dirs.make(), 'removed-state')
    const ids = {
      running: await upstream('svc-doc-running', {
        'svc.instance': '1111111111111111',
        'svc.home': `${host}:${running}`,
      }),
      stopped: await upstream('svc-doc-stopped', {
        'svc.instance': '2222222222222222',
        'svc.home': `${host}:${stopped}`,
      }),
      oldId: await upstream('svc-doc-oldid', {
        'svc.instance': '4444444444444444',
        'svc.home': `${host}:${regenerated}`,
      }),
      gone: await upstream('svc-doc-gone', {
        'svc.instance': '5555555555555555',
        'svc.home': `${host}:${gone}`,
      }),
      older: await upstream('svc-doc-older', { 'svc.instance': '6666666666666666' }),
    }
    const env = { ...process.env, SVC_STATE_DIR: stopped, SVC_CONFIG_DIR: stopped }
    try {
      const listed = await runSvc(['doctor', 'containers'], env)
      expect(listed.code, listed.stderr).toBe(0)
      const line = (name: string) => listed.stdout.split('\n').find((l) => l.includes(`${name}-${run}`)) ?? ''
      expect(listed.stdout).toContain(`instance 2222222222222222`)
      expect(line('svc-doc-running')).toMatch(/running\s+svc runs on .* \(pid \d+\)/)
      expect(line('svc-doc-stopped')).toMatch(/2222222222222222 \(this\).*\bstopped\b/)
      expect(line('svc-doc-oldid')).toMatch(/orphan\s+.* belongs to instance 3333333333333333 now/)
      expect(line('svc-doc-gone')).toMatch(/orphan\s+its state dir .*removed-state is gone/)
      expect(line('svc-doc-older')).toMatch(/unknown\s+made by an svc that did not record its state dir/)
      expect(listed.stdout).toMatch(/orphan\(s\): remove them with svc doctor containers --remove-orphans/)
      // Listing removes nothing.
      for (const id of Object.values(ids)) expect(await exists(id)).toBe(true)

      // `svc doctor --remove-orphans`, the form before `svc doctor containers`, still works.
      const removed = await runSvc(['doctor', '--remove-orphans'], env)
      expect(removed.code, removed.stderr).toBe(0)
      expect(removed.stdout).toContain(`removed container svc-doc-oldid-${run}`)
      expect(removed.stdout).toContain(`removed container svc-doc-gone-${run}`)
      expect(await exists(ids.oldId)).toBe(false)
      expect(await exists(ids.gone)).toBe(false)
      for (const id of [ids.running, ids.stopped, ids.older]) expect(await exists(id)).toBe(true)
    } finally {
      await live.release()
    }
  }, 120_000)
})
