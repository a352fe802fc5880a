/**
 * Replicas on one box (issue 40): a process slot with `replicas = 2` on the CPU starts two real
 * llama-servers behind one slot, serves from both, keeps serving when one is killed (by the pid svc
 * reports for it), starts that one again, and stops both on unload.
 */
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { isAlive } from '@svc/core/node'
import { startApi, startApiWithConfig, writeTinyGguf } from '@svc/testing'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { sendChat } from './chat-requests'
import { call, LIGHT_ARGS, llamaServerAvailable, loadOk, type SlotBody, waitForSlot } from './live'

const available = llamaServerAvailable()

interface ReplicaBody {
  id: string
  healthy: boolean
  routed: Record<'prefix' | 'session' | 'least_loaded', number>
}
type Replicated = Omit<SlotBody, 'upstream'> & {
  upstream: { pids?: string; replicas?: number } | null
  replicas: ReplicaBody[] | null
}

describe.skipIf(!available)('a process slot with replicas = 2', () => {
  let dir: string
  let gguf: string

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'svc-local-replicas-'))
    gguf = (await writeTinyGguf(join(dir, 'tiny-chat.gguf'), { role: 'chat' })).path
  })
  afterAll(() => rm(dir, { recursive: true, force: true }))

  it('starts two llama-servers, serves from both, fails over when one is killed and restarts it, and unloads both', async () => {
    await using api = await startApiWithConfig({
      slots: { primary: `runtime = "process"\nreplicas = 2\nrestart = "no"\n${LIGHT_ARGS}` },
    })
    await loadOk(api, 'primary', gguf)
    const slot = async () => (await call<Replicated>(api, '/api/slots/primary')).body
    const up = await waitForSlot(
      api,
      'primary',
      (s) => (s as Replicated).replicas?.every((r) => r.healthy) === true,
    )
    const pids = ((up as Replicated).upstream?.pids ?? '').split(' ').map(Number)
    expect(pids).toHaveLength(2)
    expect(new Set(pids).size).toBe(2)
    for (const pid of pids) expect(isAlive(pid)).toBe(true)
    expect((up as Replicated).replicas?.map((r) => r.id)).toEqual(['replica-1', 'replica-2'])

    // New prompts go to the least loaded replica, in turns: both serve.
    for (let i = 0; i < 4; i++) {
      const r = await sendChat(api, { model: 'primary', content: `question ${i}`, max_tokens: 2 })
      expect(r.status, JSON.stringify(r.body)).toBe(200)
    }
    expect((await slot()).replicas?.map((r) => r.routed.least_loaded)).toEqual([2, 2])

    // One is killed: every request is still answered (a request that meets the dead one is sent to
    // the other).
    process.kill(pids[1]!, 'SIGKILL')
    for (let i = 0; i < 4; i++) {
      const r = await sendChat(api, { model: 'primary', content: `after ${i}`, max_tokens: 2 })
      expect(r.status, JSON.stringify(r.body)).toBe(200)
    }
    // And it is started again, on a new process, and rejoins the rotation.
    const back = (await waitForSlot(
      api,
      'primary',
      (s) => {
        const r = s as Replicated
        const now = (r.upstream?.pids ?? '').split(' ').map(Number)
        return now[1] !== pids[1] && isAlive(now[1]!) && r.replicas?.filter((x) => x.healthy).length === 2
      },
      30_000,
    )) as Replicated
    expect(back.state).toMatch(/ready|idle|serving/)
    const restarted = Number((back.upstream?.pids ?? '').split(' ')[1])

    const unloaded = await call<SlotBody>(api, '/api/slots/primary/unload?wait=true', { method: 'POST' })
    expect(unloaded.status).toBe(200)
    expect(unloaded.body.state).toBe('offline')
    for (const pid of [...pids, restarted]) expect(isAlive(pid)).toBe(false)
  }, 90_000)

  it('stops the replicas a crashed svc left behind when it starts again', async () => {
    const crashed = await startApiWithConfig({
      slots: { primary: `runtime = "process"\nreplicas = 2\nrestart = "no"\n${LIGHT_ARGS}` },
    })
    try {
      const loaded = (await loadOk(crashed, 'primary', gguf)) as unknown as Replicated
      const pids = (loaded.upstream?.pids ?? '').split(' ').map(Number)
      expect(pids.filter((pid) => isAlive(pid))).toHaveLength(2)
      await crashed.stop('SIGKILL') // a crash: nothing is cleaned up, the replicas run on
      expect(pids.filter((pid) => isAlive(pid))).toHaveLength(2)
      await using again = await startApi({ configDir: crashed.configDir, stateDir: crashed.stateDir })
      const deadline = Date.now() + 20_000
      while (pids.some((pid) => isAlive(pid)) && Date.now() < deadline)
        await new Promise((r) => setTimeout(r, 100))
      expect(pids.filter((pid) => isAlive(pid))).toEqual([])
      expect((await call<SlotBody>(again, '/api/slots/primary')).body.state).toBe('offline')
    } finally {
      await crashed[Symbol.asyncDispose]()
    }
  }, 90_000)
})
