/**
 * `/etc/svc` holds files systemd and Caddy read as root or as caddy (api.env, chat.env, the
 * Caddyfile, caddy.d/) next to files the svc user must replace atomically (tokens.toml, slots/).
 * The installer makes it root:svc, mode 1771 (sticky). Shown here in a staging root, with a real
 * unprivileged process running as the svc user's uid and gid (setpriv) doing what a compromised
 * service could try.
 */
import { execFile } from 'node:child_process'
import { chmod, chown, lstat, mkdir, readFile, rm, stat, symlink, writeFile } from 'node:fs/promises'
import { promisify } from 'node:util'
import { missingPart, SVC_CLI as SVC } from '@svc/testing'
import { describe, expect, it } from 'vitest'
import { which } from '../src/install/exec'
import { PASSWORD, type StagingRoot, stagingRoot, svc } from './install-harness'

const exec = promisify(execFile)
const TOOLS = ['caddy', 'systemd-sysusers', 'systemctl', 'setpriv']
const missing = TOOLS.filter((t) => !which(t, process.env.PATH))
const skip = missing.length
  ? missingPart(missing.join(', '), 'apt-get install caddy systemd util-linux (scripts/setup.sh)')
  : process.getuid?.() !== 0
    ? missingPart('root', 'run the install tests as root (owners and a second uid are needed)')
    : undefined

const basicEnv = { SVC_ADMIN_USER: 'admin', SVC_ADMIN_PASSWORD: PASSWORD, SVC_HOSTNAME: 'svc-stage.local' }

async function svcIds(root: StagingRoot) {
  const line = (await root.read('/etc/passwd')).split('\n').find((l) => l.startsWith('svc:'))
  const [, , uid, gid] = line?.split(':') ?? []
  return { uid: Number(uid), gid: Number(gid) }
}

async function owner(path: string) {
  const st = await lstat(path)
  return { mode: (st.mode & 0o7777).toString(8), uid: st.uid, gid: st.gid, link: st.isSymbolicLink() }
}

interface Outcome {
  code: number
  stderr: string
}

/** Runs `argv` as uid/gid with no supplementary groups: an ordinary process of the svc user. */
async function asUser(
  ids: { uid: number; gid: number },
  argv: string[],
  env: Record<string, string> = {},
): Promise<Outcome> {
  return exec('setpriv', [`--reuid=${ids.uid}`, `--regid=${ids.gid}`, '--clear-groups', '--', ...argv], {
    env: { PATH: process.env.PATH ?? '', HOME: '/nonexistent', ...env },
    timeout: 60_000,
  }).then(
    (r) => ({ code: 0, stderr: r.stderr }),
    (e: { code: number; stderr: string }) => ({ code: e.code, stderr: e.stderr }),
  )
}

const sh = (ids: { uid: number; gid: number }, script: string) => asUser(ids, ['sh', '-c', script])

describe.skipIf(skip)('/etc/svc: the svc user writes its own files, never root’s', () => {
  it('is root:svc 1771; svc replaces tokens.toml and slots/ atomically but cannot replace or remove api.env, chat.env, the Caddyfile, caddy.d or install.json', async () => {
    await using root = await stagingRoot()
    expect((await svc(['install', '--auth=basic', '--root', root.dir], basicEnv)).code).toBe(0)
    await chmod(root.dir, 0o755) // mkdtemp's 0700 would stop the svc user at the door
    const ids = await svcIds(root)
    const etc = root.path('/etc/svc')
    expect(await owner(etc)).toMatchObject({ mode: '1771', uid: 0, gid: ids.gid })
    expect(await owner(`${etc}/caddy.d`)).toMatchObject({ mode: '755', uid: 0, gid: 0 })
    for (const f of ['api.env', 'chat.env']) expect(await owner(`${etc}/${f}`)).toMatchObject({ uid: 0 })
    expect(await owner(`${etc}/tokens.toml`)).toMatchObject({ mode: '600', uid: ids.uid })

    // What the API does: temp file + rename in the same directory (tokens.toml, through the real
    // token store of `svc token --local`; a slot file with the same two system calls).
    const created = await asUser(
      ids,
      [process.execPath, SVC, 'token', 'create', '--label', 'made-by-svc', '--scope', 'v1-only', '--local'],
      { SVC_CONFIG_DIR: etc, SVC_API_URL: 'http://127.0.0.1:9' },
    )
    expect(created).toMatchObject({ code: 0 })
    expect(await readFile(`${etc}/tokens.toml`, 'utf8')).toContain('made-by-svc')
    expect(await owner(`${etc}/tokens.toml`)).toMatchObject({ mode: '600', uid: ids.uid })
    const slot = await sh(
      ids,
      `mkdir -p ${etc}/slots && printf 'ctx_size = 2048\\n' > ${etc}/slots/.primary.tmp && mv -T ${etc}/slots/.primary.tmp ${etc}/slots/primary.toml`,
    )
    expect(slot).toMatchObject({ code: 0 })
    expect(await readFile(`${etc}/slots/primary.toml`, 'utf8')).toBe('ctx_size = 2048\n')

    // What a compromised service might try on root's files: each is refused by the kernel.
    const before = {
      api: await readFile(`${etc}/api.env`, 'utf8'),
      caddyfile: await readFile(`${etc}/Caddyfile`, 'utf8'),
    }
    expect(await sh(ids, `ln -s /etc/shadow ${etc}/.evil`)).toMatchObject({ code: 0 })
    for (const name of ['api.env', 'chat.env', 'Caddyfile', 'install.json']) {
      const swap = await sh(ids, `mv -f -T ${etc}/.evil ${etc}/${name}`)
      expect(swap.code, `rename over ${name}`).not.toBe(0)
      expect(swap.stderr).toMatch(/Operation not permitted|Permission denied/)
      expect((await sh(ids, `rm -f ${etc}/${name}`)).code, `remove ${name}`).not.toBe(0)
      expect((await owner(`${etc}/${name}`)).link).toBe(false)
    }
    expect((await sh(ids, `mv -T ${etc}/caddy.d ${etc}/caddy.d.old`)).code).not.toBe(0)
    expect((await sh(ids, `touch ${etc}/caddy.d/evil.caddy`)).code).not.toBe(0)
    expect(await readFile(`${etc}/api.env`, 'utf8')).toBe(before.api)
    expect(await readFile(`${etc}/Caddyfile`, 'utf8')).toBe(before.caddyfile)

    // The installer runs again over what svc made: its token stays, the file is svc's again.
    const again = await svc(['install', '--auth=basic', '--root', root.dir], basicEnv)
    expect(again.code).toBe(0)
    expect(await readFile(`${etc}/tokens.toml`, 'utf8')).toContain('made-by-svc')
    expect(await owner(`${etc}/tokens.toml`)).toMatchObject({ mode: '600', uid: ids.uid })
  })

  it('upgrading an install where svc owned /etc/svc: links it planted are never read, followed or chowned through', async () => {
    await using root = await stagingRoot()
    expect((await svc(['install', '--root', root.dir])).code).toBe(0)
    await chmod(root.dir, 0o755)
    const ids = await svcIds(root)
    const etc = root.path('/etc/svc')
    // The earlier layout: /etc/svc belonged to svc, so svc could put links and files anywhere in it.
    await chown(etc, ids.uid, ids.gid)
    await chmod(etc, 0o755)
    await rm(`${etc}/caddy.d`, { recursive: true }) // made only by --auth=basic then
    const secret = root.path('/root-only.key')
    await writeFile(secret, 'TOP-SECRET-KEY\n', { mode: 0o600 })
    const planted = await sh(
      ids,
      [
        `ln -s ${secret} ${etc}/.a && mv -f -T ${etc}/.a ${etc}/api.env`,
        `ln -s ${secret} ${etc}/tokens.toml`,
        `mkdir ${etc}/caddy.d && echo 'respond "owned"' > ${etc}/caddy.d/evil.caddy`,
      ].join(' && '),
    )
    expect(planted, planted.stderr).toMatchObject({ code: 0 })
    const secretBefore = await owner(secret)

    const refusedDir = await svc(['install', '--auth=basic', '--root', root.dir], basicEnv)
    expect(refusedDir.code).not.toBe(0)
    expect(refusedDir.stderr).toContain('/etc/svc/caddy.d belongs to uid')
    await rm(`${etc}/caddy.d`, { recursive: true })

    const refusedTokens = await svc(['install', '--auth=basic', '--root', root.dir], basicEnv)
    expect(refusedTokens.code).not.toBe(0)
    expect(refusedTokens.stderr).toContain('/etc/svc/tokens.toml is not a plain file')
    await rm(`${etc}/tokens.toml`)

    const fixed = await svc(['install', '--auth=basic', '--root', root.dir], basicEnv)
    expect(fixed.code).toBe(0)
    expect(fixed.stdout).toContain('/etc/svc/api.env is a symbolic link')
    expect(await owner(etc)).toMatchObject({ mode: '1771', uid: 0, gid: ids.gid })
    expect(await owner(`${etc}/api.env`)).toEqual({ mode: '640', uid: 0, gid: ids.gid, link: false })
    expect(await readFile(`${etc}/api.env`, 'utf8')).not.toContain('TOP-SECRET-KEY')
    expect(await owner(secret)).toEqual(secretBefore)
    expect(await readFile(secret, 'utf8')).toBe('TOP-SECRET-KEY\n')
    expect((await stat(`${etc}/caddy.d`)).uid).toBe(0)
  })

  it('never follows a link where it expects its own directory', async () => {
    await using root = await stagingRoot()
    const elsewhere = root.path('/elsewhere')
    await mkdir(elsewhere, { mode: 0o700 })
    await mkdir(root.path('/etc/svc'), { recursive: true })
    await symlink(elsewhere, root.path('/etc/svc/caddy.d'))
    const r = await svc(['install', '--root', root.dir])
    expect(r.code).not.toBe(0)
    expect(r.stderr).toContain('/etc/svc/caddy.d is a symbolic link')
    expect(await owner(elsewhere)).toMatchObject({ mode: '700', uid: 0, gid: 0 })
  })
})
