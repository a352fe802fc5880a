/**
 * `sudo svc token …` on an installed box: the CLI (root) writes tokens.toml directly while the API
 * runs as another user (`svc`; here uid 65534). The file must keep its owner and mode, so the API
 * goes on reading (and replacing) it; an API that cannot read it answers a clear 409, not a 500.
 */
import { chmod, chown, mkdtemp, rm, stat, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { LISTENING, missingPart, REPO_ROOT, runSvc, startServerProcess } from '@svc/testing'
import { afterEach, describe, expect, it } from 'vitest'

const NO_API = 'http://127.0.0.1:1'
const OTHER = { uid: 65534, gid: 65534 } // nobody:nogroup, standing in for the svc user

const skip =
  process.getuid?.() !== 0 ? missingPart('root', 'run this test as root (it needs a second uid)') : undefined

const made: string[] = []
afterEach(async () => {
  await Promise.all(made.splice(0).map((d) => rm(d, { recursive: true, force: true })))
})

function svc(args: string[], env: Record<string, string>) {
  const clean = { ...process.env }
  delete clean.SVC_TOKEN
  return runSvc(args, { ...clean, ...env })
}

/** Like /etc/svc and /var/lib/svc on an installed box: config root:svc 1771, state svc's own. */
async function installedDirs() {
  const configDir = await mkdtemp(join(tmpdir(), 'svc-owner-config-'))
  const stateDir = await mkdtemp(join(tmpdir(), 'svc-owner-state-'))
  made.push(configDir, stateDir)
  await chown(configDir, 0, OTHER.gid)
  await chmod(configDir, 0o1771)
  await chown(stateDir, OTHER.uid, OTHER.gid)
  await chmod(stateDir, 0o750)
  return { configDir, stateDir }
}

/** The API from source, as uid 65534 (node and the checkout are readable by everyone here). */
function startApiAs(dirs: { configDir: string; stateDir: string }, env: Record<string, string>) {
  return startServerProcess({
    command: process.execPath,
    args: ['--import', 'tsx', join(REPO_ROOT, 'apps/api/src/serve.ts')],
    spawn: {
      cwd: REPO_ROOT,
      uid: OTHER.uid,
      gid: OTHER.gid,
      env: {
        ...process.env,
        HOME: dirs.stateDir,
        SVC_HOST: '127.0.0.1',
        SVC_PORT: '0',
        SVC_CONFIG_DIR: dirs.configDir,
        SVC_STATE_DIR: dirs.stateDir,
        ...env,
      },
    },
    ready: LISTENING.api,
    what: 'API',
    timeoutMs: 60_000,
  })
}

async function ownerOf(path: string) {
  const st = await stat(path)
  return { uid: st.uid, gid: st.gid, mode: st.mode & 0o7777 }
}

describe.skipIf(skip)('svc token as root on a tokens.toml another user owns', () => {
  it('keeps the owner, group and mode of tokens.toml through a create and a revoke on the file', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'svc-owner-'))
    made.push(dir)
    const env = { SVC_API_URL: NO_API, SVC_CONFIG_DIR: dir, SVC_STATE_DIR: dir }
    const file = join(dir, 'tokens.toml')
    await writeFile(file, '')
    await chown(file, OTHER.uid, OTHER.gid)
    await chmod(file, 0o640)
    const created = await svc(['token', 'create', '--label', 'ci'], env)
    expect(created.code, created.stderr).toBe(0)
    expect(await ownerOf(file)).toEqual({ ...OTHER, mode: 0o640 })
    const revoked = await svc(['token', 'revoke', created.stdout.trim()], env)
    expect(revoked.code, revoked.stderr).toBe(0)
    expect(await ownerOf(file)).toEqual({ ...OTHER, mode: 0o640 })
  })

  it('lets the API (another uid) read, use and replace what root wrote, and see root revoke', async () => {
    const dirs = await installedDirs()
    await using api = await startApiAs(dirs, { SVC_AUTH_ENABLED: '1', SVC_TRUSTED_PROXIES: 'none' })
    const env = { SVC_API_URL: api.url, SVC_CONFIG_DIR: dirs.configDir, SVC_STATE_DIR: dirs.stateDir }
    const call = (token: string, path: string, init: RequestInit = {}) =>
      fetch(`${api.url}${path}`, {
        ...init,
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      })
    // No SVC_TOKEN: the API wants credentials, so root writes the file (a new one: the state dir's owner gets it).
    const first = await svc(['token', 'create', '--label', 'root', '--scope', 'admin'], env)
    expect(first.code, first.stderr).toBe(0)
    expect(first.stderr).toContain('using the config dir directly')
    const admin = first.stdout.trim()
    const file = join(dirs.configDir, 'tokens.toml')
    expect(await ownerOf(file)).toEqual({ ...OTHER, mode: 0o600 })
    expect((await call(admin, '/api/auth/tokens')).status).toBe(200)

    // The API, as its own user, replaces the file root wrote.
    const res = await call(admin, '/api/auth/tokens', {
      method: 'POST',
      body: JSON.stringify({ label: 'app', scope: 'all' }),
    })
    expect(res.status, await res.clone().text()).toBe(201)
    const app = (await res.json()) as { id: string; token: string }
    expect((await call(app.token, '/api/slots')).status).toBe(200)

    // Root revokes on the file: the API sees it at once, and can still read the file.
    const revoked = await svc(['token', 'revoke', app.id], env)
    expect(revoked.code, revoked.stderr).toBe(0)
    expect(await ownerOf(file)).toEqual({ ...OTHER, mode: 0o600 })
    await expect.poll(async () => (await call(app.token, '/api/slots')).status, { timeout: 10_000 }).toBe(401)
    expect((await call(admin, '/api/auth/tokens')).status).toBe(200)
  }, 120_000)

  it('starts on a tokens.toml it may not read, and answers token changes with a 409 naming owner and mode', async () => {
    const dirs = await installedDirs()
    const file = join(dirs.configDir, 'tokens.toml')
    await writeFile(file, '', { mode: 0o600 }) // root:root 0600, as an old `sudo svc token` left it
    await using api = await startApiAs(dirs, { SVC_AUTH_ENABLED: '0' })
    const res = await fetch(`${api.url}/api/auth/tokens`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ label: 'x' }),
    })
    const body = (await res.json()) as { error: { code: string; message: string } }
    expect(res.status).toBe(409)
    expect(body.error.code).toBe('config.invalid')
    expect(body.error.message).toContain(`cannot read ${file} (owner uid 0, gid 0, mode 0600`)
    expect(api.output()).toMatch(/tokens\.toml problem.*owner uid 0, gid 0, mode 0600/)
  }, 120_000)
})
