/**
 * What the built servers (what `pnpm start` and the installed services run) load before anyone uses
 * them: neither has loaded Hono's Node adapter, which brings Node's own fetch (undici) with it, until
 * the first request it answers; that request then works. (`pnpm bench`'s start section measures the
 * memory this keeps.)
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { BUILT_ENTRIES, ensureBuilt, LISTENING, loopbackEnv, startServerProcess } from '@svc/testing'
import { afterEach, beforeAll, describe, expect, it } from 'vitest'

beforeAll(async () => {
  await ensureBuilt('api', 'chat')
}, 120_000)

const dirs: string[] = []
afterEach(async () => {
  for (const d of dirs.splice(0)) await rm(d, { recursive: true, force: true })
})

const NODE_FETCH = 'NativeModule internal/deps/undici/undici'

/**
 * Runs a built server until it listens, makes `firstRequest` when given, and answers the built-in
 * modules it has loaded by then (a probe loaded before the server writes them on SIGUSR2).
 */
async function modulesLoaded(
  app: 'api' | 'chat',
  firstRequest?: (url: string) => Promise<void>,
): Promise<string[]> {
  const dir = await mkdtemp(join(tmpdir(), 'svc-idle-'))
  dirs.push(dir)
  const list = join(dir, 'modules.txt')
  const probe = join(dir, 'probe.mjs')
  await writeFile(
    probe,
    [
      "import { renameSync, writeFileSync } from 'node:fs'",
      "process.on('SIGUSR2', () => {",
      `  writeFileSync(${JSON.stringify(`${list}.tmp`)}, process.moduleLoadList.join('\\n'))`,
      `  renameSync(${JSON.stringify(`${list}.tmp`)}, ${JSON.stringify(list)})`,
      '})',
    ].join('\n'),
  )
  await using server = await startServerProcess({
    command: process.execPath,
    args: ['--import', probe, BUILT_ENTRIES[app]],
    spawn: { env: { PATH: process.env.PATH ?? '', HOME: dir, ...loopbackEnv(dir) } },
    ready: LISTENING[app],
    what: `the built ${app}`,
    timeoutMs: 30_000,
  })
  await firstRequest?.(server.url)
  process.kill(server.pid, 'SIGUSR2')
  for (const t0 = Date.now(); Date.now() - t0 < 5_000; await new Promise((r) => setTimeout(r, 10))) {
    const text = await readFile(list, 'utf8').catch(() => '')
    if (text) return text.split('\n')
  }
  throw new Error(`the probe in the ${app} server wrote no module list`)
}

const FIRST: Record<'api' | 'chat', (url: string) => Promise<void>> = {
  api: async (url) => {
    expect((await fetch(`${url}/api/status`)).status).toBe(200)
  },
  // With a body: it waits, unread, while the adapter loads.
  chat: async (url) => {
    const res = await fetch(`${url}/api/conversations`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ title: 'the first' }),
    })
    expect(((await res.json()) as { conversation: { title: string } }).conversation.title).toBe('the first')
  },
}

describe.each(['api', 'chat'] as const)('the built %s server', (app) => {
  it('loads Node\u2019s fetch (with Hono\u2019s adapter) on its first request, not at start', async () => {
    expect(await modulesLoaded(app)).not.toContain(NODE_FETCH)
    expect(await modulesLoaded(app, FIRST[app])).toContain(NODE_FETCH)
  }, 60_000)
})
