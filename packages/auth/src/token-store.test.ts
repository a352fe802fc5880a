import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { SvcError } from '@svc/core'
import { afterEach, describe, expect, it } from 'vitest'
import { parseToken } from './token-format'
import { createTokenStore, type TokenStore, type TokenStoreOptions } from './token-store'
import { parseTokensFile } from './tokens-file'
import { checkTokensFile } from './tokens-file-check'

const FAST = { memoryCost: 256, timeCost: 1, parallelism: 1 }
const dirs: string[] = []
const stores: TokenStore[] = []

async function open(options: Partial<TokenStoreOptions> = {}) {
  const configDir = options.configDir ?? (await mkdtemp(join(tmpdir(), 'svc-tokens-')))
  if (!options.configDir) dirs.push(configDir)
  const store = createTokenStore({ hashParams: FAST, flushIntervalMs: 0, ...options, configDir })
  stores.push(store)
  return store
}

afterEach(async () => {
  await Promise.all(stores.splice(0).map((s) => s.close()))
  await Promise.all(dirs.splice(0).map((d) => rm(d, { recursive: true, force: true })))
})

describe('token store', () => {
  it("keeps a token's limits in its [token.limits] table, replaced or cleared on request", async () => {
    const store = await open()
    const created = await store.create({
      label: 'kid',
      limits: { requests_per_minute: 6, tokens_per_day: 500 },
    })
    expect(created.limits).toEqual({ requests_per_minute: 6, tokens_per_day: 500 })
    expect(await readFile(store.path, 'utf8')).toMatch(
      /\[token\.limits\]\s+requests_per_minute = 6\s+tokens_per_day = 500/,
    )
    const changed = await store.setLimits(created.id, { tokens_per_minute: 100 })
    expect(changed?.limits).toEqual({ tokens_per_minute: 100 })
    expect(store.lookup(created.id)?.limits).toEqual({ tokens_per_minute: 100 })
    expect((await store.setLimits(created.id, null))?.limits).toBeNull()
    expect(await readFile(store.path, 'utf8')).not.toContain('limits')
    expect(await store.setLimits('AAAAAAAAAAAA', {})).toBeUndefined()
    await expect(store.setLimits(created.id, { requests_per_minute: 0 })).rejects.toMatchObject({
      code: 'request.invalid',
      param: 'limits.requests_per_minute',
    })
    await expect(store.create({ label: 'x', limits: { per_hour: 3 } as never })).rejects.toMatchObject({
      code: 'request.invalid',
    })
  })

  it("keeps a token's models in the file; none, null or [] means every model (no key)", async () => {
    const store = await open()
    const kid = await store.create({ label: 'kid', models: ['qwen3-8b*', 'embed'] })
    expect(kid.models).toEqual(['qwen3-8b*', 'embed'])
    expect(await readFile(store.path, 'utf8')).toMatch(/models = \[ "qwen3-8b\*", "embed" \]/)
    await store.refresh()
    expect(store.lookup(kid.id)?.models).toEqual(['qwen3-8b*', 'embed'])
    for (const models of [undefined, null, []]) {
      const all = await store.create({ label: 'all', models })
      expect(all.models).toBeNull()
    }
    expect((await readFile(store.path, 'utf8')).match(/models =/g)).toHaveLength(1)
    expect((await store.list()).map((t) => t.models)).toEqual([['qwen3-8b*', 'embed'], null, null, null])
    await expect(store.create({ label: 'x', models: ['a b'] })).rejects.toMatchObject({
      code: 'request.invalid',
      param: 'models.0',
    })
    const parsed = parseTokensFile(
      '[[token]]\nid = "AAAAAAAAAAAA"\nlabel = "x"\nscope = "all"\ncreated_at = "2025-01-01T00:00:00Z"\nhash = "$argon2id$x"\nmodels = []\n',
      'tokens.toml',
    )
    expect(parsed.ok).toBe(false)
    expect(!parsed.ok && parsed.error).toMatch(/line 7: token\.0\.models: at least one model/)
  })

  it('creates a token, stores only its hash in a 0600 file, and lists it without secrets', async () => {
    const store = await open({ clock: () => Date.parse('2025-01-02T03:04:05Z') })
    const created = await store.create({ label: 'ci runner', scope: 'all' })
    const parsed = parseToken(created.token)
    expect(parsed.ok && parsed.id).toBe(created.id)
    expect(created).toMatchObject({
      label: 'ci runner',
      scope: 'all',
      created_at: '2025-01-02T03:04:05.000Z',
    })
    const text = await readFile(store.path, 'utf8')
    expect(text).not.toContain(created.token.split('.')[1])
    expect(text).toContain('$argon2id$')
    expect((await stat(store.path)).mode & 0o777).toBe(0o600)
    expect(await store.list()).toEqual([
      {
        id: created.id,
        label: 'ci runner',
        scope: 'all',
        created_at: '2025-01-02T03:04:05.000Z',
        last_used_at: null,
        limits: null,
        models: null,
      },
    ])
  })

  it('defaults the scope to v1-only and refuses bad labels and scopes as request.invalid', async () => {
    const store = await open()
    expect((await store.create({ label: 'x' })).scope).toBe('v1-only')
    for (const input of [
      { label: '' },
      { label: '   ' },
      { label: 'a'.repeat(65) },
      { label: 'tab\there' },
      { label: 'ok', scope: 'root' },
    ]) {
      const error = await store.create(input as { label: string }).catch((e: unknown) => e)
      expect(error).toBeInstanceOf(SvcError)
      expect((error as SvcError).code).toBe('request.invalid')
    }
    expect((await store.create({ label: 'é'.repeat(64) })).label).toHaveLength(64)
  })

  it('revokes at once and says whether anything was revoked', async () => {
    const store = await open()
    const a = await store.create({ label: 'a' })
    const b = await store.create({ label: 'b' })
    expect(await store.revoke(a.id)).toBe(true)
    expect(store.lookup(a.id)).toBeUndefined()
    expect(await store.revoke(a.id)).toBe(false)
    expect((await store.list()).map((t) => t.id)).toEqual([b.id])
  })

  it('sees a change made by another writer on the next refresh, with the watcher marking it stale', async () => {
    const api = await open()
    const cli = await open({ configDir: api.path.replace(/\/tokens\.toml$/, ''), watch: false })
    const t = await cli.create({ label: 'from the cli' })
    await api.refresh()
    expect(api.lookup(t.id)?.label).toBe('from the cli')
    await new Promise((r) => setTimeout(r, 50))
    await api.refresh()
    expect(api.stale).toBe(false)
    await cli.revoke(t.id)
    await expect.poll(() => api.stale).toBe(true)
    await api.refresh()
    expect(api.lookup(t.id)).toBeUndefined()
  })

  it('without a watcher is always stale, so every check stats the file', async () => {
    const store = await open({ watch: false })
    await store.refresh()
    expect(store.stale).toBe(true)
  })

  it('keeps last use in memory and writes it in one batch on flush and on close', async () => {
    let now = Date.parse('2025-01-01T00:00:00Z')
    const store = await open({ clock: () => now })
    const t = await store.create({ label: 'a' })
    const before = await readFile(store.path, 'utf8')
    now += 60_000
    for (let i = 0; i < 1000; i++) store.touch(t.id)
    expect(await readFile(store.path, 'utf8')).toBe(before)
    expect((await store.list())[0]?.last_used_at).toBe('2025-01-01T00:01:00.000Z')
    await store.flush()
    const file = parseTokensFile(await readFile(store.path, 'utf8'), 'x')
    expect(file.ok && file.records[0]?.last_used_at).toBe('2025-01-01T00:01:00.000Z')
    now += 60_000
    store.touch(t.id)
    await store.close()
    const closed = parseTokensFile(await readFile(store.path, 'utf8'), 'x')
    expect(closed.ok && closed.records[0]?.last_used_at).toBe('2025-01-01T00:02:00.000Z')
  })

  it('keeps the last good tokens of a file that breaks, reports it (with the line), and never overwrites it', async () => {
    const problems: string[] = []
    const store = await open({ onProblem: (m) => problems.push(m) })
    const t = await store.create({ label: 'a' })
    await writeFile(store.path, '# edited\n[[token]]\nid = "nope"\n')
    await expect.poll(() => store.stale).toBe(true)
    await store.refresh()
    expect(store.lookup(t.id)?.label).toBe('a')
    expect(store.problem).toMatch(/tokens\.toml: line 3: token\.0\.id/)
    expect(problems).toHaveLength(1)
    expect((await store.list()).map((x) => x.id)).toEqual([t.id])
    await expect(store.create({ label: 'b' })).rejects.toMatchObject({ code: 'config.invalid', status: 409 })
    await expect(store.revoke(t.id)).rejects.toThrow(/fix or remove it/)
    expect(await readFile(store.path, 'utf8')).toBe('# edited\n[[token]]\nid = "nope"\n')
  })

  it('holds no tokens when the file was never good', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'svc-tokens-'))
    dirs.push(dir)
    await writeFile(join(dir, 'tokens.toml'), 'not = [toml')
    const store = await open({ configDir: dir, watch: false })
    await store.refresh()
    expect(store.problem).toMatch(/line 1, column \d+: not valid TOML/)
    expect(store.lookup('anything')).toBeUndefined()
    expect(await checkTokensFile(dir)).toBe(store.problem)
  })

  it('loses nothing when many changes race in one process', async () => {
    const store = await open()
    const made = await Promise.all(Array.from({ length: 30 }, (_, i) => store.create({ label: `t${i}` })))
    await Promise.all(made.slice(0, 10).map((t) => store.revoke(t.id)))
    const ids = (await store.list()).map((t) => t.id).sort()
    expect(ids).toEqual(
      made
        .slice(10)
        .map((t) => t.id)
        .sort(),
    )
  })
})
