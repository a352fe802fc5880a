/**
 * `svc models ls` lists what this machine can run, as the API decides it for every face (`offered`):
 * the NPU's models are not offered on a box without an NPU, and `--all` lists them with the reason.
 * A pull with the Hub out of reach says the machine looks offline and what to do instead. The real
 * `svc` against a real API whose HF_ENDPOINT does not resolve.
 */
import { type ApiProcess, runSvc, startApi, testEnv } from '@svc/testing'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

interface Listed {
  id: string
  provider: string
  offered?: boolean
  reason?: string | null
}

describe('svc models on this machine', () => {
  let api: ApiProcess
  let models: Listed[]
  const svc = (...args: string[]) => runSvc(args, { ...testEnv.inherited(), SVC_API_URL: api.url })

  beforeAll(async () => {
    api = await startApi({ env: { HF_ENDPOINT: 'http://hub.invalid' } })
    models = ((await (await fetch(`${api.url}/api/models`)).json()) as { models: Listed[] }).models
  }, 60_000)
  afterAll(() => api?.[Symbol.asyncDispose]())

  it('lists only the models offered here; --all adds the others with why they cannot run', async () => {
    const npu = models.filter((m) => m.provider === 'npu')
    // This box has no NPU (no /dev/accel/accel0): the API offers none of the NPU's models.
    expect(npu.length).toBeGreaterThan(0)
    expect(npu.every((m) => m.offered === false && m.reason)).toBe(true)
    const [ls, all] = await Promise.all([svc('models', 'ls'), svc('models', 'ls', '--all')])
    expect(ls.code, ls.stderr).toBe(0)
    const ids = (out: string) =>
      out
        .split('\n')
        .slice(1)
        .map((l) => l.split(/\s+/)[0])
    expect(ids(ls.stdout)).toContain('qwen3-0.6b-q8_0')
    for (const m of npu) expect(ids(ls.stdout)).not.toContain(m.id)
    const hidden = models.filter((m) => m.offered === false).length
    expect(ls.stdout).toContain(
      `${hidden} more models cannot run on this machine; svc models ls --all lists them`,
    )

    expect(all.code, all.stderr).toBe(0)
    expect(all.stdout.split('\n')[0]).toMatch(/\sRUNS HERE$/)
    const row = (id: string) => all.stdout.split('\n').find((l) => l.startsWith(`${id} `)) ?? ''
    for (const m of npu) expect(row(m.id)).toContain(`no: ${m.reason}`)
    expect(row('qwen3-0.6b-q8_0')).toMatch(/\syes$/)
  }, 120_000)

  it('a pull with the Hub out of reach says the machine looks offline and what to do instead', async () => {
    const r = await svc('models', 'pull', 'hf.co/tiny/Tiny-Chat-GGUF:Q4_K_M')
    expect(r.code).toBe(1)
    expect(r.stderr).toContain(
      'cannot reach the Hugging Face Hub at http://hub.invalid (ENOTFOUND): this machine looks offline; load a local .gguf by path instead, or set HF_ENDPOINT to a mirror',
    )
    expect(r.stderr).not.toMatch(/^\s+at /m)
  }, 60_000)
})
