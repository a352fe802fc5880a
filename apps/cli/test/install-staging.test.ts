import { copyFile, mkdir, mkdtemp, readdir, rm, stat } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { nodeMajor, nodeVersionOf, REPO_ROOT, requiredNodeMajor } from '@svc/testing'
import { beforeAll, describe, expect, it } from 'vitest'
import { snapshot, stagingRoot, svc } from './install-harness'
import { basicEnv, exec, idsOf, owner, skip } from './install-staging-parts'

describe.skipIf(skip)('svc install into a staging root', () => {
  beforeAll(() => {
    expect(process.getuid?.()).toBe(0) // owners are set, as on a real install
  })

  it('creates the svc user, its directories, hardened units and 0640 env files; a second run changes nothing', async () => {
    await using root = await stagingRoot()
    const r = await svc(['install', '--root', root.dir])
    expect(r.stderr).toBe('')
    expect(r.code).toBe(0)

    const svcUser = await idsOf(root, 'svc')
    expect(svcUser.line).toMatch(/^svc:x:\d+:\d+:svc model server:\/var\/lib\/svc:/)
    // root's, group svc, sticky: install-config-dir.test.ts shows why
    expect(await owner(root, '/etc/svc')).toEqual({ mode: '1771', uid: 0, gid: svcUser.gid })
    expect(await owner(root, '/etc/svc/caddy.d')).toEqual({ mode: '755', uid: 0, gid: 0 })
    expect(await owner(root, '/var/lib/svc')).toEqual({ mode: '750', uid: svcUser.uid, gid: svcUser.gid })
    expect((await owner(root, '/var/lib')).mode).toBe('755')
    expect(await owner(root, '/etc/svc/api.env')).toEqual({ mode: '640', uid: 0, gid: svcUser.gid })
    const chatUser = await idsOf(root, 'svc-chat')
    expect(chatUser.line).toMatch(/^svc-chat:x:\d+:\d+:svc chat app:\/var\/lib\/svc-chat:/)
    expect(await owner(root, '/etc/svc/chat.env')).toEqual({ mode: '640', uid: 0, gid: chatUser.gid })
    expect(await owner(root, '/var/lib/svc-chat')).toEqual({
      mode: '700',
      uid: chatUser.uid,
      gid: chatUser.gid,
    })

    const api = await root.read('/etc/systemd/system/svc-api.service')
    const chat = await root.read('/etc/systemd/system/svc-chat.service')
    expect(api).toContain(`ExecStart=${process.execPath} ${join(REPO_ROOT, 'apps/cli/dist/svc.js')} serve`)
    expect(chat).toMatch(/ExecStart=\S+node \S+\/apps\/cli\/dist\/svc\.js chat\n/)
    // The services run the Node that ran `svc install`: a supported one, and after ./scripts/setup.sh (CI) its 24.
    for (const unit of [api, chat]) {
      const node = /^ExecStart=(\S+) /m.exec(unit)?.[1] ?? ''
      expect(nodeMajor(nodeVersionOf(node))).toBeGreaterThanOrEqual(requiredNodeMajor())
    }
    for (const unit of [api, chat]) {
      for (const line of ['NoNewPrivileges=yes', 'ProtectSystem=strict', 'ProtectHome=yes', 'PrivateTmp=yes'])
        expect(unit).toContain(`\n${line}\n`)
    }
    expect(api).toContain('\nUser=svc\n')
    expect(api).toContain('\nReadWritePaths=/etc/svc /var/lib/svc\n')
    expect(chat).toContain('\nUser=svc-chat\n') // install-chat-unit.test.ts: its sandbox
    expect(api).not.toContain('docker')
    expect(api).toContain('EnvironmentFile=/etc/svc/api.env')
    expect(chat).toContain('EnvironmentFile=/etc/svc/chat.env')
    const wants = await readdir(root.path('/etc/systemd/system/multi-user.target.wants'))
    expect(wants.sort()).toEqual(['svc-api.service', 'svc-chat.service'])

    expect(await root.env('/etc/svc/api.env')).toMatchObject({
      SVC_AUTH_ENABLED: '0',
      SVC_PORT: '8080',
      SVC_CONFIG_DIR: '/etc/svc',
    })
    expect(await root.env('/etc/svc/api.env')).not.toHaveProperty('SVC_PROXY_SECRET')
    expect(await root.env('/etc/svc/chat.env')).toEqual({
      SVC_STATE_DIR: '/var/lib/svc-chat',
      SVC_CHAT_PORT: '3001',
      SVC_CHAT_HOST: '0.0.0.0',
      SVC_CHAT_API_URL: 'http://127.0.0.1:8080',
    })
    // no systemd runs here: the commands that start the services are printed
    expect(r.stdout).toContain('systemctl restart svc-api.service svc-chat.service')

    const before = await snapshot(root.dir)
    const again = await svc(['install', '--root', root.dir])
    expect(again.code).toBe(0)
    expect(again.stdout).toContain('user svc exists')
    expect(await snapshot(root.dir)).toEqual(before)
  })

  it('--containers puts the API unit into the docker group, and the choice is remembered', async () => {
    await using root = await stagingRoot()
    expect((await svc(['install', '--root', root.dir, '--containers'])).code).toBe(0)
    expect(await root.read('/etc/systemd/system/svc-api.service')).toContain('\nSupplementaryGroups=docker\n')
    expect((await svc(['install', '--root', root.dir])).code).toBe(0)
    expect(await root.read('/etc/systemd/system/svc-api.service')).toContain('\nSupplementaryGroups=docker\n')
    expect(await root.read('/etc/systemd/system/svc-chat.service')).not.toContain('docker')
    expect((await svc(['install', '--root', root.dir, '--no-containers'])).code).toBe(0)
    expect(await root.read('/etc/systemd/system/svc-api.service')).not.toContain('docker')
  })

  it('renders units that pass systemd-analyze verify (and the caddy drop-in on top of caddy.service)', async () => {
    await using root = await stagingRoot()
    expect((await svc(['install', '--auth=basic', '--containers', '--root', root.dir], basicEnv)).code).toBe(
      0,
    )
    const units = root.path('/etc/systemd/system')
    const verify = (files: string[]) =>
      exec('systemd-analyze', ['verify', ...files]).then(
        (r) => ({ code: 0, stderr: r.stderr }),
        (e: { code: number; stderr: string }) => ({ code: e.code, stderr: e.stderr }),
      )
    const ours = await verify(
      ['svc-api.service', 'svc-chat.service', 'svc-auth.service'].map((u) => join(units, u)),
    )
    expect(ours).toEqual({ code: 0, stderr: '' })

    // the drop-in, applied to the distribution's caddy.service as systemd would
    const caddyUnit = ['/lib/systemd/system/caddy.service', '/usr/lib/systemd/system/caddy.service']
    const found = (
      await Promise.all(
        caddyUnit.map((p) =>
          stat(p).then(
            () => p,
            () => undefined,
          ),
        ),
      )
    ).find(Boolean)
    if (!found) throw new Error('caddy.service is not installed (Debian caddy package)')
    const dir = await mkdtemp(join(tmpdir(), 'svc-caddy-unit-'))
    try {
      await mkdir(join(dir, 'caddy.service.d'))
      await copyFile(found, join(dir, 'caddy.service'))
      await copyFile(join(units, 'caddy.service.d/svc.conf'), join(dir, 'caddy.service.d/svc.conf'))
      expect(await verify([join(dir, 'caddy.service')])).toEqual({ code: 0, stderr: '' })
    } finally {
      await rm(dir, { recursive: true, force: true })
    }
  })

  it('--dry-run prints what would change and changes nothing', async () => {
    await using root = await stagingRoot()
    const fresh = await snapshot(root.dir)
    const r = await svc(['install', '--auth=basic', '--dry-run', '--root', root.dir], basicEnv)
    expect(r.code).toBe(0)
    expect(r.stdout).toContain('would create /etc/svc/Caddyfile (0640 root:caddy)')
    expect(r.stdout).toContain('would run: ')
    expect(await snapshot(root.dir)).toEqual(fresh)

    expect((await svc(['install', '--auth=basic', '--root', root.dir], basicEnv)).code).toBe(0)
    const installed = await snapshot(root.dir)
    const off = await svc(['install', '--auth=off', '--dry-run', '--root', root.dir])
    expect(off.code).toBe(0)
    expect(off.stdout).toContain('would update /etc/svc/api.env')
    expect(off.stdout).toContain('would remove /etc/systemd/system/caddy.service.d/svc.conf')
    expect(off.stdout).toContain("would revoke the chat app's previous token (1)")
    expect(await snapshot(root.dir)).toEqual(installed)
  })

  it('with no package manager on PATH and no Caddy: exits non-zero, points to Caddy’s install docs, changes nothing', async () => {
    await using root = await stagingRoot()
    const empty = await mkdtemp(join(tmpdir(), 'svc-empty-path-'))
    try {
      const before = await snapshot(root.dir)
      const r = await svc(['install', '--auth=basic', '--root', root.dir], { ...basicEnv, PATH: empty })
      expect(r.code).not.toBe(0)
      expect(r.stderr).toContain('no package manager here (apt, dnf, pacman, zypper, apk)')
      expect(r.stderr).toContain('https://caddyserver.com/docs/install')
      expect(r.stderr).toContain('Nothing was changed')
      expect(await snapshot(root.dir)).toEqual(before)
    } finally {
      await rm(empty, { recursive: true, force: true })
    }
  })

  it('refuses bad input before changing anything', async () => {
    await using root = await stagingRoot()
    const before = await snapshot(root.dir)
    const cases: Array<[Record<string, string>, string]> = [
      [{ ...basicEnv, SVC_HOSTNAME: 'svc.local }' }, 'is not a host name'],
      [{ ...basicEnv, SVC_ADMIN_USER: 'ad min' }, 'is not a valid user name'],
      [{ ...basicEnv, SVC_ADMIN_PASSWORD: 'short' }, 'at least 8 characters'],
      [{ SVC_HOSTNAME: 'svc.local' }, 'use --admin-password-file PATH or --admin-password-stdin'],
    ]
    for (const [env, message] of cases) {
      const r = await svc(['install', '--auth=basic', '--root', root.dir], env)
      expect(r.code, message).toBe(2)
      expect(r.stderr).toContain(message)
    }
    const flag = await svc(['install', '--auth=digest', '--root', root.dir])
    expect([flag.code, flag.stderr]).toEqual([2, 'svc: --auth must be basic or off, got "digest"\n'])
    expect(await snapshot(root.dir)).toEqual(before)
  })
})
