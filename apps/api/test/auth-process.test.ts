/**
 * The real API process (SVC_AUTH_ENABLED=1) and the real CLI as separate processes: revocation from
 * the CLI takes effect on the API's very next request, last use is written at shutdown, and the
 * token never shows up in a log line, a response or a file.
 */
import { execFile } from 'node:child_process'
import { readdir, readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { parseTokensFile } from '@svc/auth'
import { REPO_ROOT, startApi } from '@svc/testing'
import { describe, expect, it } from 'vitest'

const exec = promisify(execFile)
const SVC = join(REPO_ROOT, 'apps/cli/bin/svc.js')

async function svc(args: string[], env: Record<string, string>): Promise<string> {
  const clean = { ...process.env }
  delete clean.SVC_TOKEN
  const { stdout } = await exec(process.execPath, [SVC, ...args], { env: { ...clean, ...env } })
  return stdout
}

async function filesUnder(dir: string): Promise<string[]> {
  const out: string[] = []
  for (const entry of await readdir(dir, { withFileTypes: true, recursive: true })) {
    if (entry.isFile()) out.push(join(entry.parentPath, entry.name))
  }
  return out
}

describe('auth across processes', () => {
  it('applies a revoke by `svc token revoke` on the next request, and leaks the token nowhere', async () => {
    await using api = await startApi({ env: { SVC_AUTH_ENABLED: '1' } })
    const env = { SVC_API_URL: api.url, SVC_CONFIG_DIR: api.configDir }
    const bodies: string[] = []
    const call = async (path: string, token: string, init: RequestInit = {}) => {
      const res = await fetch(api.url + path, {
        ...init,
        headers: { authorization: `Bearer ${token}`, ...(init.headers as Record<string, string>) },
      })
      const text = await res.text()
      bodies.push(text)
      return { status: res.status, code: (JSON.parse(text) as { error?: { code?: string } }).error?.code }
    }

    const kept = (await svc(['token', 'create', '--label', 'kept', '--scope', 'all', '--local'], env)).trim()
    const doomed = (
      await svc(['token', 'create', '--label', 'doomed', '--scope', 'admin', '--local'], env)
    ).trim()
    const other = (
      await svc(['token', 'create', '--label', 'other', '--scope', 'v1-only', '--local'], env)
    ).trim()
    for (let i = 0; i < 5; i++) expect((await call('/api/slots', doomed)).status).toBe(200)
    expect((await call('/api/slots', kept)).status).toBe(200)
    expect((await call('/v1/chat/completions', other, { method: 'POST', body: '{}' })).code).not.toMatch(
      /^auth\./,
    )

    // Against the config dir explicitly, while the API runs: the next request already fails.
    await svc(['token', 'revoke', doomed.slice(4, 16), '--local'], env)
    expect(await call('/api/slots', doomed)).toEqual({ status: 401, code: 'auth.invalid' })
    expect((await call('/api/slots', kept)).status).toBe(200)

    // Without SVC_TOKEN the CLI finds the API wants credentials and changes the file itself.
    await svc(['token', 'revoke', other.slice(4, 16)], env)
    expect(await call('/v1/chat/completions', other, { method: 'POST', body: '{}' })).toEqual({
      status: 401,
      code: 'auth.invalid',
    })

    // Some refusals with the secrets in the wrong places, for the scan below.
    await call('/api/slots', `${kept}x`)
    await call('/api/auth/tokens', kept)
    await fetch(`${api.url}/api/slots`, { headers: { authorization: `bearer ${kept}` } }).then((r) =>
      r.text(),
    )

    expect(await api.stop()).toBe(0)
    const file = parseTokensFile(await readFile(join(api.configDir, 'tokens.toml'), 'utf8'), 'tokens.toml')
    if (!file.ok) throw new Error(file.error)
    expect(file.records.map((r) => r.label)).toEqual(['kept'])
    expect(file.records[0]?.last_used_at).toEqual(expect.any(String)) // written at shutdown

    const secrets = [kept, doomed, other].flatMap((t) => [t, t.split('.')[1]!])
    const log = api.output()
    expect(log).toContain('"msg":"svc listening"')
    for (const secret of secrets) {
      expect(log).not.toContain(secret)
      for (const body of bodies) expect(body).not.toContain(secret)
    }
    const files = [...(await filesUnder(api.configDir)), ...(await filesUnder(api.stateDir))]
    expect(files.map((f) => f.slice(api.configDir.length))).toContain('/tokens.toml')
    for (const path of files) {
      const content = await readFile(path, 'latin1')
      for (const secret of secrets) expect(content.includes(secret), `${path} holds a secret`).toBe(false)
    }
  }, 90_000)
})
