import { readFile, stat } from 'node:fs/promises'
import { join } from 'node:path'
import { Writable } from 'node:stream'
import { runSvc, startApi, tempDirs } from '@svc/testing'
import { afterEach, describe, expect, it } from 'vitest'
import { run } from '../src/main'

const NO_API = 'http://127.0.0.1:1'

function svc(args: string[], env: Record<string, string>) {
  const clean = { ...process.env }
  delete clean.SVC_TOKEN
  return runSvc(args, { ...clean, ...env })
}

const dirs = tempDirs('svc-cli-token-')
afterEach(() => dirs.removeAll())
const configDir = () => dirs.make()

describe('svc token', () => {
  it('works on the config dir when the API is down: create prints the token alone on stdout, ls, revoke', async () => {
    const dir = await configDir()
    const env = { SVC_API_URL: NO_API, SVC_CONFIG_DIR: dir }
    const created = await svc(['token', 'create', '--label', 'ci runner', '--scope', 'all'], env)
    expect(created.code, created.stderr).toBe(0)
    const token = created.stdout.trim()
    expect(token).toMatch(/^svc_([A-Za-z0-9]{12})\.[A-Za-z0-9_-]{43}$/)
    expect(created.stderr).toMatch(/Created token \w{12} "ci runner" \(scope all\)/)
    expect(created.stderr).toContain('shown only once')
    const id = token.slice(4, 16)

    const file = join(dir, 'tokens.toml')
    expect((await stat(file)).mode & 0o777).toBe(0o600)
    expect(await readFile(file, 'utf8')).not.toContain(token.split('.')[1])

    const ls = await svc(['token', 'ls'], env)
    expect(ls.stdout).toMatch(/^ID\s+LABEL\s+SCOPE\s+MODELS\s+LIMITS\s+CREATED\s+LAST USED\n/)
    expect(ls.stdout).toMatch(
      new RegExp(`${id}\\s+ci runner\\s+all\\s+all\\s+none\\s+\\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\dZ\\s+never`),
    )
    expect(ls.stdout).not.toContain(token)

    const revoked = await svc(['token', 'revoke', id], env)
    expect(revoked.code).toBe(0)
    expect(revoked.stdout).toBe(`Revoked token ${id}.\n`)
    expect((await svc(['token', 'ls'], env)).stdout).toContain('No tokens')
    const again = await svc(['token', 'revoke', id], env)
    expect(again.code).toBe(1)
    expect(again.stderr).toContain(`no token with id ${id}`)
  })

  it('limits a token to models with --models, kept in the file and shown by ls', async () => {
    const dir = await configDir()
    const env = { SVC_API_URL: NO_API, SVC_CONFIG_DIR: dir }
    const created = await svc(['token', 'create', '--label', 'kid', '--models', 'qwen3-8b*, embed'], env)
    expect(created.code, created.stderr).toBe(0)
    expect(created.stderr).toContain('(scope v1-only, models qwen3-8b*,embed)')
    const id = created.stdout.trim().slice(4, 16)
    expect(await readFile(join(dir, 'tokens.toml'), 'utf8')).toContain('models = [ "qwen3-8b*", "embed" ]')
    expect((await svc(['token', 'ls'], env)).stdout).toMatch(
      new RegExp(`${id}\\s+kid\\s+v1-only\\s+qwen3-8b\\*,embed\\s+none`),
    )
    const listed = JSON.parse((await svc(['token', 'ls', '--json'], env)).stdout)
    expect(listed.tokens[0].models).toEqual(['qwen3-8b*', 'embed'])
    const bad = await svc(['token', 'create', '--label', 'x', '--models', 'a b'], env)
    expect(bad.code).toBe(2)
    expect(bad.stderr).toContain('models.0')
  })

  it('sets a quota at creation and changes, shows or clears it with token limits', async () => {
    const dir = await configDir()
    const env = { SVC_API_URL: NO_API, SVC_CONFIG_DIR: dir }
    const created = await svc(['token', 'create', '--label', 'kid', '--rpm', '60', '--tpd=200000'], env)
    expect(created.code, created.stderr).toBe(0)
    expect(created.stderr).toContain('limits 60 rpm, 200000 tpd')
    const id = created.stdout.trim().slice(4, 16)
    expect(await readFile(join(dir, 'tokens.toml'), 'utf8')).toContain('requests_per_minute = 60')
    expect((await svc(['token', 'ls'], env)).stdout).toMatch(
      new RegExp(`${id}\\s+kid\\s+v1-only\\s+all\\s+60 rpm, 200000 tpd`),
    )
    expect((await svc(['token', 'limits', id], env)).stdout).toBe(`Token ${id} "kid": 60 rpm, 200000 tpd.\n`)
    expect((await svc(['token', 'limits', id, '--tpm', '500'], env)).stdout).toBe(
      `Token ${id} "kid": 500 tpm.\n`,
    )
    expect((await svc(['token', 'limits', id, '--none'], env)).stdout).toBe(`Token ${id} "kid": no limits.\n`)
    const bad = await svc(['token', 'limits', id, '--rpm', '0'], env)
    expect(bad.code).toBe(2)
    expect(bad.stderr).toContain('--rpm must be a whole number >= 1')
    expect((await svc(['token', 'limits', 'AAAAAAAAAAAA', '--rpm', '1'], env)).stderr).toContain(
      'no token with id',
    )
  })

  it('prints JSON with --json, and revokes by a whole token without echoing it', async () => {
    const dir = await configDir()
    const env = { SVC_API_URL: NO_API, SVC_CONFIG_DIR: dir }
    const created = JSON.parse((await svc(['token', 'create', '--label=x', '--json'], env)).stdout)
    expect(created).toMatchObject({ label: 'x', scope: 'v1-only', warning: expect.any(String) })
    const listed = JSON.parse((await svc(['token', 'ls', '--json'], env)).stdout)
    expect(listed.tokens).toEqual([
      {
        id: created.id,
        label: 'x',
        scope: 'v1-only',
        created_at: created.created_at,
        last_used_at: null,
        limits: null,
        models: null,
      },
    ])
    const revoked = await svc(['token', 'revoke', created.token], env)
    expect(revoked.code).toBe(0)
    expect(revoked.stdout + revoked.stderr).not.toContain(created.token.split('.')[1])
  })

  it.each([
    [['token', 'create'], /--label/],
    [
      ['token', 'create', '--label', 'x', '--scope', 'root'],
      /--scope must be one of admin, all, v1-only, read-only/,
    ],
    [['token', 'create', '--label', ''], /label/],
    [['token', 'create', '--label', 'x', '--bogus'], /unknown option --bogus/],
    [['token', 'revoke'], /usage: svc token revoke ID/],
    [['token', 'revoke', '-x'], /12 letters and digits/],
    [['token', 'frob'], /svc token: unknown command "frob"/],
  ])('refuses %j with exit code 2', async (args, message) => {
    // In-process through the same entry as the binary, with the streams injected.
    let stderr = ''
    const sink = (write: (s: string) => void) =>
      new Writable({
        write(chunk, _enc, done) {
          write(String(chunk))
          done()
        },
      })
    const env = { SVC_API_URL: NO_API, SVC_CONFIG_DIR: await configDir() }
    const code = await run(args, {
      env,
      apiUrl: NO_API,
      stdout: sink(() => {}),
      stderr: sink((s) => {
        stderr += s
      }),
    })
    expect(code).toBe(2)
    expect(stderr).toMatch(message)
  })

  it('goes through the API when it is up, with SVC_TOKEN as the bearer', async () => {
    await using api = await startApi({ env: { SVC_AUTH_ENABLED: '1' } })
    const env = { SVC_API_URL: api.url, SVC_CONFIG_DIR: api.configDir }
    // No SVC_TOKEN: the API wants credentials, so the first admin token is made on the file.
    const first = await svc(['token', 'create', '--label', 'root', '--scope', 'admin'], env)
    expect(first.code, first.stderr).toBe(0)
    expect(first.stderr).toContain('needs credentials (SVC_TOKEN); using the config dir directly')
    const admin = first.stdout.trim()

    const viaApi = await svc(
      ['token', 'create', '--label', 'app', '--scope', 'v1-only', '--models', 'app-*'],
      {
        ...env,
        SVC_TOKEN: admin,
      },
    )
    expect(viaApi.code, viaApi.stderr).toBe(0)
    expect(viaApi.stderr).not.toContain('config dir')
    const v1 = viaApi.stdout.trim()

    // A v1-only token may not manage tokens: the API's 403 proves the request went to the API.
    const refused = await svc(['token', 'ls'], { ...env, SVC_TOKEN: v1 })
    expect(refused.code).toBe(1)
    expect(refused.stderr).toContain('auth.forbidden')

    const ls = await svc(['token', 'ls'], { ...env, SVC_TOKEN: admin })
    expect(ls.stdout).toMatch(/root\s+admin/)
    expect(ls.stdout).toMatch(/app\s+v1-only\s+app-\*\s+none/)
    // root was used for the calls above; the API reports use it has not written yet.
    expect(ls.stdout).not.toMatch(/root\s+admin\s+all\s+none\s+\S+ \S+\s+never/)

    // Limits through the API (PATCH), and what was used (svc usage) as the admin sees it.
    const appId = v1.slice(4, 16)
    const limited = await svc(['token', 'limits', appId, '--rpm', '5'], { ...env, SVC_TOKEN: admin })
    expect(limited.stdout, limited.stderr).toBe(`Token ${appId} "app": 5 rpm.\n`)
    const chat = await fetch(`${api.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${v1}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'nope', messages: [{ role: 'user', content: 'hi' }] }),
    })
    expect(chat.headers.get('x-ratelimit-remaining-requests')).toBe('4')
    const usage = await svc(['usage'], { ...env, SVC_TOKEN: admin })
    expect(usage.code, usage.stderr).toBe(0)
    expect(usage.stdout).toMatch(/^TOKEN\s+LABEL\s+REQUESTS\s+PROMPT\s+COMPLETION/m)
    expect(usage.stdout).toMatch(new RegExp(`^${appId}\\s+app\\s+1\\s`, 'm'))
    expect(usage.stdout).toMatch(/^total\s+-\s+1\s/m)
    expect((await svc(['usage', '--by', 'colour'], env)).code).toBe(2)

    const bad = await svc(['token', 'ls'], { ...env, SVC_TOKEN: 'svc_nope' })
    expect(bad.code).toBe(1)
    expect(bad.stderr).toContain('auth.invalid')
  })
})
