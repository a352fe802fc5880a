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
    expect(ls.stdout).toMatch(/^ID\s+LABEL\s+SCOPE\s+CREATED\s+LAST USED\n/)
    expect(ls.stdout).toMatch(
      new RegExp(`${id}\\s+ci runner\\s+all\\s+\\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\dZ\\s+never`),
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

  it('prints JSON with --json, and revokes by a whole token without echoing it', async () => {
    const dir = await configDir()
    const env = { SVC_API_URL: NO_API, SVC_CONFIG_DIR: dir }
    const created = JSON.parse((await svc(['token', 'create', '--label=x', '--json'], env)).stdout)
    expect(created).toMatchObject({ label: 'x', scope: 'v1-only', warning: expect.any(String) })
    const listed = JSON.parse((await svc(['token', 'ls', '--json'], env)).stdout)
    expect(listed.tokens).toEqual([
      { id: created.id, label: 'x', scope: 'v1-only', created_at: created.created_at, last_used_at: null, limits: null },
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
    [['token', 'frob'], /Usage: svc token/],
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

    const viaApi = await svc(['token', 'create', '--label', 'app', '--scope', 'v1-only'], {
      ...env,
      SVC_TOKEN: admin,
    })
    expect(viaApi.code, viaApi.stderr).toBe(0)
    expect(viaApi.stderr).not.toContain('config dir')
    const v1 = viaApi.stdout.trim()

    // A v1-only token may not manage tokens: the API's 403 proves the request went to the API.
    const refused = await svc(['token', 'ls'], { ...env, SVC_TOKEN: v1 })
    expect(refused.code).toBe(1)
    expect(refused.stderr).toContain('auth.forbidden')

    const ls = await svc(['token', 'ls'], { ...env, SVC_TOKEN: admin })
    expect(ls.stdout).toMatch(/root\s+admin/)
    expect(ls.stdout).toMatch(/app\s+v1-only/)
    // root was used for the calls above; the API reports use it has not written yet.
    expect(ls.stdout).not.toMatch(/root\s+admin\s+\S+ \S+\s+never/)

    const bad = await svc(['token', 'ls'], { ...env, SVC_TOKEN: 'svc_nope' })
    expect(bad.code).toBe(1)
    expect(bad.stderr).toContain('auth.invalid')
  })
})
