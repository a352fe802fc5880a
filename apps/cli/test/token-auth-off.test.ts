/**
 * A token made while auth is off works nowhere yet: `svc token create` says so on stderr, with how to
 * turn auth on, and stdout stays the token alone. The real `svc` against a real API.
 */
import { runSvc, startApi, tempDirs, testEnv } from '@svc/testing'
import { afterAll, describe, expect, it } from 'vitest'

const dirs = tempDirs('svc-token-auth-off-')
afterAll(() => dirs.removeAll())

describe('svc token create with auth off', () => {
  it('makes the token and says that nothing checks it until auth is on', async () => {
    await using api = await startApi({ timeoutMs: 90_000 })
    const env: Record<string, string | undefined> = { ...testEnv.inherited(), SVC_API_URL: api.url }
    delete env.SVC_TOKEN
    const r = await runSvc(['token', 'create', '--label', 'laptop'], env)
    expect(r.code, r.stderr).toBe(0)
    expect(r.stdout).toMatch(/^svc_[A-Za-z0-9]{12}\.[A-Za-z0-9_-]{43}\n$/)
    expect(r.stderr).toMatch(/Created token \w{12} "laptop"/)
    expect(r.stderr).toContain(
      `auth is off at ${api.url}: nothing checks tokens until you turn it on (svc install --auth=basic, or SVC_AUTH_ENABLED=1 for the API; see docs/auth.md)`,
    )
  }, 180_000)

  it('says nothing of the kind when the API is down (the token went to the config dir; its mode is unknown)', async () => {
    const dir = await dirs.make()
    const env: Record<string, string | undefined> = {
      ...testEnv.inherited(),
      SVC_API_URL: 'http://127.0.0.1:1',
      SVC_CONFIG_DIR: dir,
    }
    delete env.SVC_TOKEN
    const r = await runSvc(['token', 'create', '--label', 'laptop'], env)
    expect(r.code, r.stderr).toBe(0)
    expect(r.stdout).toMatch(/^svc_\w{12}\./)
    expect(r.stderr).not.toContain('auth is off')
  }, 120_000)
})
