/**
 * `svc models search|quants|pull|rm` against the real API with the Hub stand-in behind HF_ENDPOINT:
 * what a person types and reads, to the exit status; Ctrl-C during a pull cancels it in the API.
 */
import { spawn } from 'node:child_process'
import { mkdtemp, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import {
  type ApiProcess,
  type HubStandIn,
  runSvc,
  SVC_CLI,
  startApi,
  startHubStandIn,
  testEnv,
  writeTinyGguf,
} from '@svc/testing'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

const REPO = 'tiny/Tiny-Chat-GGUF'
const Q4 = `hf.co/${REPO}:Q4_K_M`

describe('svc models search|quants|pull|rm', () => {
  let dir: string
  let hub: HubStandIn
  let api: ApiProcess
  let weights: Buffer
  const svc = (...args: string[]) => runSvc(args, { ...testEnv.inherited(), SVC_API_URL: api.url })

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'svc-cli-library-'))
    weights = await readFile((await writeTinyGguf(join(dir, 'q4.gguf'))).path)
    // Another file (its own sha256, so its own CDN object) of the same size.
    const other = await readFile((await writeTinyGguf(join(dir, 'q8.gguf'), { seed: 2 })).path)
    hub = await startHubStandIn({
      repos: [
        {
          id: REPO,
          downloads: 4_200,
          likes: 3,
          files: { 'Tiny-Chat-Q4_K_M.gguf': weights, 'Tiny-Chat-Q8_0.gguf': other },
        },
        { id: 'tiny/Tiny-Gated-GGUF', gated: 'manual', downloads: 5, files: { 'g-Q4_K_M.gguf': weights } },
      ],
    })
    api = await startApi({ env: { HF_ENDPOINT: hub.url } })
  }, 60_000)
  afterAll(async () => {
    await api?.[Symbol.asyncDispose]()
    await hub?.[Symbol.asyncDispose]()
    await rm(dir, { recursive: true, force: true })
  })

  it('searches the Hub and prints a table, most downloaded first', async () => {
    const r = await svc('models', 'search', 'tiny')
    expect(r.code, r.stderr).toBe(0)
    const lines = r.stdout.split('\n')
    expect(lines[0]).toMatch(/^REPO\s+DOWNLOADS\s+LIKES\s+UPDATED\s+ACCESS$/)
    expect(lines[1]).toMatch(new RegExp(`^${REPO}\\s+4200\\s+3\\s+\\d{4}-\\d{2}-\\d{2}\\s+open$`))
    expect(lines[2]).toMatch(/^tiny\/Tiny-Gated-GGUF\s+5\s+.*gated \(HF_TOKEN\)$/)
    const none = await svc('models', 'search', 'zebra')
    expect(none).toMatchObject({ code: 0, stdout: 'no GGUF repo on the Hub matches "zebra"\n' })
    expect((await svc('models', 'search')).code).toBe(2)
  })

  it("lists a repo's quants with the names to pull", async () => {
    const r = await svc('models', 'quants', `hf.co/${REPO}`)
    expect(r.code, r.stderr).toBe(0)
    expect(r.stdout).toMatch(/^tiny\/Tiny-Chat-GGUF: llama, 2 layers, context 512\n/)
    expect(r.stdout).toMatch(new RegExp(`${Q4.replace(/[.]/g, '\\.')}\\s+\\d`))
    const missing = await svc('models', 'quants', 'tiny/nothing')
    expect(missing.code).toBe(1)
    expect(missing.stderr).toMatch(/tiny\/nothing/)
  })

  it('pulls a Hub name to the end, says so again when on disk, and removes it', async () => {
    const r = await svc('models', 'pull', Q4)
    expect(r.code, r.stderr).toBe(0)
    expect(r.stdout).toMatch(new RegExp(`pulled ${Q4.replace(/[.]/g, '\\.')} \\(`))
    const again = await svc('models', 'pull', Q4)
    expect(again.stdout).toMatch(/is already on disk/)
    const ls = await svc('models', 'ls')
    expect(ls.stdout).toMatch(new RegExp(`${Q4.replace(/[.]/g, '\\.')}\\s+llm\\s+\\S+\\s+\\S+\\s+yes`))
    const removed = await svc('models', 'rm', Q4)
    expect(removed).toMatchObject({ code: 0, stdout: `deleted ${Q4}\n` })
    const unknown = await svc('models', 'rm', 'no-such-model')
    expect(unknown.code).toBe(1)
    expect(unknown.stderr).toContain('no-such-model')
  })

  it('cancels the pull in the API on Ctrl-C and exits 130', async () => {
    const name = `hf.co/${REPO}:Q8_0`
    hub.throttle(REPO, 'Tiny-Chat-Q8_0.gguf', Math.ceil(weights.length / 20))
    try {
      const child = spawn(process.execPath, [SVC_CLI, 'models', 'pull', name], {
        env: { ...testEnv.inherited(), SVC_API_URL: api.url },
      })
      let out = ''
      let err = ''
      child.stdout.on('data', (b: Buffer) => {
        out += b.toString()
      })
      child.stderr.on('data', (b: Buffer) => {
        err += b.toString()
      })
      const exited = new Promise<number | null>((r) => child.on('exit', (code) => r(code)))
      await expect.poll(() => out, { timeout: 20_000 }).toMatch(/pulling/)
      child.kill('SIGINT')
      const code = await Promise.race([exited, new Promise((r) => setTimeout(() => r('hung'), 15_000))])
      if (code === 'hung') child.kill('SIGKILL')
      expect(code, `${out}\n${err}`).toBe(130)
      expect(err).toMatch(/cancelled/)
      const models = (await (await fetch(`${api.url}/api/models`)).json()) as {
        models: { id: string; pulling: unknown }[]
      }
      expect(models.models.find((m) => m.id === name)?.pulling ?? null).toBeNull()
    } finally {
      hub.throttle(REPO, 'Tiny-Chat-Q8_0.gguf', undefined)
    }
  }, 60_000)
})
