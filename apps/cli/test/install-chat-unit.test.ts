/**
 * The chat app is the part of svc that handles what users and models send; a compromised chat
 * process must not be the API's admin. So it runs as its own user (svc-chat), its unit is narrowed,
 * and it holds no secret the API honours. Checked on a staging root with the real tools, and the
 * file permissions with the real kernel (a process with svc-chat's uid and gid).
 */
import { chmod, mkdir, readdir, stat, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { missingPart } from '@svc/testing'
import { describe, expect, it } from 'vitest'
import { runCommand, which } from '../src/install/exec'
import { PASSWORD, type StagingRoot, stagingRoot, svc } from './install-harness'

const TOOLS = ['caddy', 'systemd-sysusers', 'systemctl', 'setpriv']
const missing = TOOLS.filter((t) => !which(t, process.env.PATH))
const skip = missing.length ? missingPart(missing.join(', '), 'apt-get install caddy systemd') : undefined

const basicEnv = { SVC_ADMIN_USER: 'admin', SVC_ADMIN_PASSWORD: PASSWORD, SVC_HOSTNAME: 'svc-stage.local' }

async function ids(root: StagingRoot, name: string): Promise<{ uid: number; gid: number }> {
  const line = (await root.read('/etc/passwd')).split('\n').find((l) => l.startsWith(`${name}:`))
  const [, , uid, gid] = line?.split(':') ?? []
  return { uid: Number(uid), gid: Number(gid) }
}

/** Runs `argv` as uid/gid with no other groups; resolves with its exit code. */
async function as(who: { uid: number; gid: number }, argv: string[]): Promise<number | null> {
  const setpriv = ['setpriv', `--reuid=${who.uid}`, `--regid=${who.gid}`, '--clear-groups', '--']
  return (await runCommand([...setpriv, ...argv], { env: { PATH: process.env.PATH } })).code
}

describe.skipIf(skip)('svc install: the chat app’s own user and narrow unit', () => {
  it('runs the chat app as svc-chat in a unit that writes only its own state and sees nothing of /etc/svc', async () => {
    await using root = await stagingRoot()
    expect((await svc(['install', '--auth=basic', '--root', root.dir], basicEnv)).code).toBe(0)
    const unit = await root.read('/etc/systemd/system/svc-chat.service')
    const lines = new Set(unit.split('\n'))
    for (const line of [
      'User=svc-chat',
      'Group=svc-chat',
      'WorkingDirectory=/var/lib/svc-chat',
      'NoNewPrivileges=yes',
      'ProtectSystem=strict',
      'ReadWritePaths=/var/lib/svc-chat',
      'InaccessiblePaths=/etc/svc /var/lib/svc',
      'CapabilityBoundingSet=',
      'AmbientCapabilities=',
      'PrivateDevices=yes',
      'PrivateTmp=yes',
      'ProtectHome=yes',
      'ProtectProc=invisible',
      'RestrictAddressFamilies=AF_INET AF_INET6 AF_UNIX',
      'RestrictNamespaces=yes',
      'RestrictSUIDSGID=yes',
      'SystemCallFilter=@system-service',
      'SystemCallFilter=~@privileged',
    ])
      expect(lines.has(line), line).toBe(true)
    // nothing else is writable, and no other user's directory is named
    expect(unit.match(/^ReadWritePaths=.*$/gm)).toEqual(['ReadWritePaths=/var/lib/svc-chat'])
    expect(unit).not.toMatch(/^(User|Group|SupplementaryGroups)=svc$/m)

    // its environment holds no secret of the API's
    const api = await root.env('/etc/svc/api.env')
    const chat = await root.env('/etc/svc/chat.env')
    expect(chat.SVC_STATE_DIR).toBe('/var/lib/svc-chat')
    expect(Object.values(chat)).not.toContain(api.SVC_PROXY_SECRET)
    expect(chat.SVC_PROXY_SECRET).toBeTruthy()
  })

  it('auth basic enables the auth gate: as svc, writing nothing; auth off disables it', async () => {
    await using root = await stagingRoot()
    expect((await svc(['install', '--auth=basic', '--root', root.dir], basicEnv)).code).toBe(0)
    const wants = () => readdir(root.path('/etc/systemd/system/multi-user.target.wants'))
    expect(await wants()).toContain('svc-auth.service')
    const unit = await root.read('/etc/systemd/system/svc-auth.service')
    for (const line of [
      'User=svc',
      'EnvironmentFile=/etc/svc/api.env',
      'CapabilityBoundingSet=',
      'ProtectSystem=strict',
    ])
      expect(unit.split('\n')).toContain(line)
    expect(unit).not.toMatch(/^ReadWritePaths=/m)
    expect(unit).toMatch(/^ExecStart=\S+ \S+\/apps\/cli\/dist\/svc\.js auth-gate$/m)
    expect(await root.env('/etc/svc/api.env')).toMatchObject({
      SVC_AUTH_GATE_PORT: '3002',
      SVC_AUTH_GATE_USERS: '/etc/svc/admin.htpasswd',
    })
    expect((await svc(['install', '--auth=off', '--root', root.dir])).code).toBe(0)
    expect(await wants()).not.toContain('svc-auth.service')
    expect(await root.env('/etc/svc/api.env')).not.toHaveProperty('SVC_AUTH_GATE_USERS')
  })

  it('the svc-chat user cannot read api.env or tokens.toml, write /etc/svc or enter the API’s state (real permissions)', async () => {
    await using root = await stagingRoot()
    await chmod(root.dir, 0o755) // mkdtemp's 0700 would keep every other user out of the whole tree
    expect((await svc(['install', '--auth=basic', '--root', root.dir], basicEnv)).code).toBe(0)
    const chat = await ids(root, 'svc-chat')
    const api = await ids(root, 'svc')
    expect(chat.uid).not.toBe(api.uid)
    const p = (target: string) => root.path(target)
    // the fallback start commands source chat.env as svc-chat; api.env is the API's alone
    expect(await as(chat, ['cat', p('/etc/svc/chat.env')])).toBe(0)
    expect(await as(api, ['cat', p('/etc/svc/api.env')])).toBe(0)
    expect(await as(chat, ['cat', p('/etc/svc/api.env')])).not.toBe(0)
    expect(await as(chat, ['cat', p('/etc/svc/tokens.toml')])).not.toBe(0)
    expect(await as(chat, ['touch', p('/etc/svc/slots.toml')])).not.toBe(0)
    expect(await as(chat, ['ls', p('/var/lib/svc')])).not.toBe(0)
    expect(await as(chat, ['touch', p('/var/lib/svc-chat/ok')])).toBe(0)
  })

  it('moves the chat data of an older install (in the API’s state dir) to svc-chat, once', async () => {
    await using root = await stagingRoot()
    expect((await svc(['install', '--root', root.dir])).code).toBe(0)
    // what an older svc left: /var/lib/svc/chat, the svc user's
    const svcIds = await ids(root, 'svc')
    await mkdir(p(root, '/var/lib/svc/chat/files'), { recursive: true })
    await writeFile(p(root, '/var/lib/svc/chat/chat.db'), 'db')
    const r = await svc(['install', '--root', root.dir])
    expect(r.code).toBe(0)
    expect(r.stdout).toContain('move the chat app’s data to its own user')
    const chat = await ids(root, 'svc-chat')
    expect(chat.uid).not.toBe(svcIds.uid)
    for (const f of [
      '/var/lib/svc-chat/chat',
      '/var/lib/svc-chat/chat/chat.db',
      '/var/lib/svc-chat/chat/files',
    ]) {
      const st = await stat(p(root, f))
      expect([f, st.uid, st.gid]).toEqual([f, chat.uid, chat.gid])
    }
    expect(await readdir(p(root, '/var/lib/svc'))).not.toContain('chat')
    const again = await svc(['install', '--root', root.dir])
    expect(again.stdout).not.toContain('move the chat app’s data')
  })
})

function p(root: StagingRoot, target: string): string {
  return join(root.dir, target)
}
