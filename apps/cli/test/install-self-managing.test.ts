/**
 * `svc install --load-on-request` / `--unload-after` against a staging root: the defaults for slots
 * that manage themselves land in api.env (as the API reads them), are remembered by a run without
 * the flags, and are refused before anything changes when they are wrong.
 */
import { writeFile } from 'node:fs/promises'
import { missingPart } from '@svc/testing'
import { describe, expect, it } from 'vitest'
import { which } from '../src/install/exec'
import { snapshot, stagingRoot, svc } from './install-harness'

const TOOLS = ['systemd-sysusers', 'systemctl']
const missing = TOOLS.filter((t) => !which(t, process.env.PATH))
const skip = missing.length
  ? missingPart(missing.join(', '), 'apt-get install systemd (scripts/setup.sh)')
  : undefined

const API_ENV = '/etc/svc/api.env'

describe.skipIf(skip)('svc install: slots that manage themselves', () => {
  it('--load-on-request and --unload-after write api.env; a run without them keeps the lines, the off flags remove them', async () => {
    await using root = await stagingRoot()
    const on = await svc(['install', '--root', root.dir, '--load-on-request', '--unload-after', '15m'])
    expect([on.code, on.stderr]).toEqual([0, ''])
    const env = await root.env(API_ENV)
    expect(env).toMatchObject({ SVC_LOAD_ON_REQUEST: '1', SVC_UNLOAD_AFTER: '15m', SVC_PORT: '8080' })
    expect(await root.env('/etc/svc/chat.env')).not.toHaveProperty('SVC_LOAD_ON_REQUEST')

    // A run without the flags (say, for new ports) keeps them.
    expect((await svc(['install', '--root', root.dir, '--api-port', '8081'])).code).toBe(0)
    expect(await root.env(API_ENV)).toMatchObject({
      SVC_LOAD_ON_REQUEST: '1',
      SVC_UNLOAD_AFTER: '15m',
      SVC_PORT: '8081',
    })

    // Only the flag given changes its key.
    expect((await svc(['install', '--root', root.dir, '--unload-after', '2h'])).code).toBe(0)
    expect(await root.env(API_ENV)).toMatchObject({ SVC_LOAD_ON_REQUEST: '1', SVC_UNLOAD_AFTER: '2h' })

    // Off is no line: absent means off and never to the API.
    const off = await svc(['install', '--root', root.dir, '--no-load-on-request', '--unload-after', '0'])
    expect(off.code).toBe(0)
    const text = await root.read(API_ENV)
    expect(text).not.toContain('SVC_LOAD_ON_REQUEST')
    expect(text).not.toContain('SVC_UNLOAD_AFTER')
    expect(await root.env(API_ENV)).toMatchObject({ SVC_PORT: '8081' })
  })

  it('keeps a value set by hand in api.env when the flags are not given', async () => {
    await using root = await stagingRoot()
    expect((await svc(['install', '--root', root.dir])).code).toBe(0)
    const text = await root.read(API_ENV)
    await writeFile(root.path(API_ENV), `${text}SVC_UNLOAD_AFTER=30m\n`)
    expect((await svc(['install', '--root', root.dir])).code).toBe(0)
    expect((await root.env(API_ENV)).SVC_UNLOAD_AFTER).toBe('30m')
  })

  it('refuses a bad --unload-after or contradicting flags with exit 2, before changing anything', async () => {
    await using root = await stagingRoot()
    expect((await svc(['install', '--root', root.dir])).code).toBe(0)
    const before = await snapshot(root.dir)
    const cases: Array<[string[], string]> = [
      [
        ['--unload-after', 'soon'],
        'svc: --unload-after must be a duration like "15m", "90s", "2h" or 0, got "soon"\n',
      ],
      [
        ['--unload-after=-5m'],
        'svc: --unload-after must be a duration like "15m", "90s", "2h" or 0, got "-5m"\n',
      ],
      [
        ['--load-on-request', '--no-load-on-request'],
        'svc: --load-on-request and --no-load-on-request exclude each other\n',
      ],
    ]
    for (const [flags, message] of cases) {
      const r = await svc(['install', '--root', root.dir, ...flags])
      expect([r.code, r.stderr]).toEqual([2, message])
    }
    const missingValue = await svc(['install', '--root', root.dir, '--unload-after'])
    expect(missingValue.code).toBe(2)
    expect(missingValue.stderr).toContain('--unload-after')
    expect(await snapshot(root.dir)).toEqual(before)
  })

  it('svc install --help names the flags', async () => {
    const r = await svc(['install', '--help'])
    expect(r.code).toBe(0)
    expect(r.stdout).toContain('--load-on-request, --no-load-on-request')
    expect(r.stdout).toContain('--unload-after DURATION')
  })
})
