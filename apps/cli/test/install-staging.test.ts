/**
 * `svc install` against a staging root (`--root`), with the real service-manager and user
 * tools (systemd-sysusers, systemctl --root, systemd-analyze) and the real Caddy's validator. Nothing
 * here touches this machine's /etc.
 */
import { execFile } from 'node:child_process'
import { copyFile, mkdir, mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { missingPart, nodeMajor, nodeVersionOf, REPO_ROOT, requiredNodeMajor } from '@svc/testing'
import bcrypt from 'bcryptjs'
import { beforeAll, describe, expect, it } from 'vitest'
import { CHAT_TOKEN_LABEL } from '../src/install/chat-token'
import { which } from '../src/install/exec'
import { defaultHostname } from '../src/install/host-name'
import { PASSWORD, type StagingRoot, snapshot, stagingRoot, svc } from './install-harness'

const exec = promisify(execFile)
const TOOLS = ['caddy', 'systemd-sysusers', 'systemctl', 'systemd-analyze']
const missing = TOOLS.filter((t) => !which(t, process.env.PATH))
const skip = missing.length
  ? missingPart(missing.join(', '), 'apt-get install caddy systemd (scripts/setup.sh)')
  : undefined

const basicEnv = { SVC_ADMIN_USER: 'admin', SVC_ADMIN_PASSWORD: PASSWORD, SVC_HOSTNAME: 'svc-stage.local' }

async function idsOf(root: StagingRoot, name: string) {
  const line = (await root.read('/etc/passwd')).split('\n').find((l) => l.startsWith(`${name}:`))
  const group = (await root.read('/etc/group')).split('\n').find((l) => l.startsWith(`${name}:`))
  return { line, uid: Number(line?.split(':')[2]), gid: Number(group?.split(':')[2]) }
}

async function owner(root: StagingRoot, target: string) {
  const st = await stat(root.path(target))
  return { mode: (st.mode & 0o7777).toString(8), uid: st.uid, gid: st.gid }
}

/** Every file under the root, as text (to look for a plaintext password). */
async function allText(dir: string): Promise<string> {
  let text = ''
  for (const entry of await readdir(dir, { recursive: true, withFileTypes: true })) {
    if (entry.isFile()) text += await readFile(join(entry.parentPath, entry.name), 'latin1')
  }
  return text
}

async function caddyValidate(file: string) {
  const home = await mkdtemp(join(tmpdir(), 'svc-validate-'))
  try {
    return await exec('caddy', ['validate', '--config', file, '--adapter', 'caddyfile'], {
      env: { PATH: process.env.PATH, HOME: home, XDG_DATA_HOME: home, XDG_CONFIG_HOME: home },
    }).then(
      (r) => ({ code: 0, output: r.stdout + r.stderr }),
      (e: { code: number; stdout: string; stderr: string }) => ({
        code: e.code,
        output: e.stdout + e.stderr,
      }),
    )
  } finally {
    await rm(home, { recursive: true, force: true })
  }
}

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

  it('--auth=basic: a Caddyfile that caddy validate accepts, one secret in api.env, chat.env and the proxy, a v1-only chat token, the password nowhere', async () => {
    await using root = await stagingRoot()
    const r = await svc(['install', '--auth=basic', '--root', root.dir], basicEnv)
    expect(r.stderr).toBe('')
    expect(r.code).toBe(0)
    const caddy = await idsOf(root, 'caddy')
    expect(await owner(root, '/etc/svc/Caddyfile')).toEqual({ mode: '640', uid: 0, gid: caddy.gid })
    const caddyfile = await root.read('/etc/svc/Caddyfile')
    expect(await caddyValidate(root.path('/etc/svc/Caddyfile'))).toMatchObject({ code: 0 })
    expect(caddyfile).toMatch(/^svc-stage\.local \{\n\ttls internal\n/m)
    expect(caddyfile).toContain('\tskip_install_trust\n')

    // the password is checked by the auth gate (svc user), not by Caddy: only the gate's file has its hash
    expect(await owner(root, '/etc/svc/admin.htpasswd')).toEqual({
      mode: '640',
      uid: 0,
      gid: (await idsOf(root, 'svc')).gid,
    })
    const hash = /^admin:(\S+)\n$/.exec(await root.read('/etc/svc/admin.htpasswd'))?.[1]
    expect(hash).toMatch(/^\$2[aby]\$12\$/)
    expect(await bcrypt.compare(PASSWORD, hash!)).toBe(true)
    expect(caddyfile).not.toContain(hash)

    const api = await root.env('/etc/svc/api.env')
    const chat = await root.env('/etc/svc/chat.env')
    expect(api).toMatchObject({ SVC_AUTH_ENABLED: '1', SVC_HOST: '127.0.0.1' })
    expect(api.SVC_PROXY_SECRET).toMatch(/^[A-Za-z0-9_-]{43}$/)
    expect(chat).toMatchObject({
      SVC_CHAT_HOST: '127.0.0.1',
      SVC_CHAT_TRUSTED_HEADER: 'X-Forwarded-Email',
      SVC_CHAT_API_URL: 'http://127.0.0.1:8080',
    })
    // the chat app has a secret of its own: the API's would make it any signed-in user to the API
    expect(chat.SVC_PROXY_SECRET).toMatch(/^[A-Za-z0-9_-]{43}$/)
    expect(chat.SVC_PROXY_SECRET).not.toBe(api.SVC_PROXY_SECRET)
    // three routes to the API and three questions to the auth gate
    expect(caddyfile.match(new RegExp(`X-Svc-Proxy-Secret "${api.SVC_PROXY_SECRET}"`, 'g'))).toHaveLength(6)
    expect(caddyfile.match(new RegExp(`X-Svc-Proxy-Secret "${chat.SVC_PROXY_SECRET}"`, 'g'))).toHaveLength(1)
    const tokenId = /^svc_([A-Za-z0-9]{12})\./.exec(chat.SVC_CHAT_API_TOKEN ?? '')?.[1]
    expect(tokenId).toBeDefined()
    const tokens = await root.read('/etc/svc/tokens.toml')
    expect(tokens).toContain(`id = "${tokenId}"`)
    expect(tokens).toMatch(/scope = "v1-only"/)
    const svcUser = await idsOf(root, 'svc')
    expect(await owner(root, '/etc/svc/tokens.toml')).toEqual({
      mode: '600',
      uid: svcUser.uid,
      gid: svcUser.gid,
    })
    expect(await root.read('/etc/systemd/system/caddy.service.d/svc.conf')).toContain(
      '\nExecStart=\nExecStart=/usr/bin/caddy run --config /etc/svc/Caddyfile --adapter caddyfile\n',
    )

    // the plaintext is in no file and no output; no secret is printed
    expect(await allText(root.dir)).not.toContain(PASSWORD)
    for (const secret of [PASSWORD, api.SVC_PROXY_SECRET!, chat.SVC_CHAT_API_TOKEN!]) {
      expect(r.stdout).not.toContain(secret)
      expect(r.stderr).not.toContain(secret)
    }
    expect(r.stdout).toContain('/var/lib/caddy/.local/share/caddy/pki/authorities/local/root.crt')
    expect(r.stdout).toMatch(
      /\d+\.\d+\.\d+\.\d+ svc-stage\.local|<this machine’s LAN address> svc-stage\.local/,
    )
  })

  it('a public name gets a certificate over ACME with SVC_TLS_EMAIL, and is refused without it', async () => {
    await using root = await stagingRoot()
    const before = await snapshot(root.dir)
    const refused = await svc(['install', '--auth=basic', '--root', root.dir], {
      ...basicEnv,
      SVC_HOSTNAME: 'llm.example.com',
    })
    expect(refused.code).toBe(2)
    expect(refused.stderr).toContain('set SVC_TLS_EMAIL')
    expect(await snapshot(root.dir)).toEqual(before)

    const env = { ...basicEnv, SVC_HOSTNAME: 'llm.example.com', SVC_TLS_EMAIL: 'ops@example.com' }
    const r = await svc(['install', '--auth=basic', '--root', root.dir], env)
    expect(r.code).toBe(0)
    const caddyfile = await root.read('/etc/svc/Caddyfile')
    expect(await caddyValidate(root.path('/etc/svc/Caddyfile'))).toMatchObject({ code: 0 })
    expect(caddyfile).toContain('\temail ops@example.com\n')
    expect(caddyfile).not.toContain('tls internal')
    expect(caddyfile).toMatch(/^llm\.example\.com \{$/m)
    expect(r.stdout).toContain('DNS-01')
  })

  it('publishes an avahi service when avahi is installed, and needs no hosts line for this machine’s own name', async () => {
    await using root = await stagingRoot()
    await mkdir(root.path('/etc/avahi'), { recursive: true })
    await writeFile(root.path('/etc/avahi/avahi-daemon.conf'), '[server]\n')
    const r = await svc(['install', '--auth=basic', '--root', root.dir, '--https-port', '8443'], {
      ...basicEnv,
      SVC_HOSTNAME: defaultHostname(),
    })
    expect(r.code).toBe(0)
    const service = await root.read('/etc/avahi/services/svc.service')
    expect(service).toContain('<type>_https._tcp</type>')
    expect(service).toContain('<port>8443</port>')
    expect(r.stdout).not.toContain('/etc/hosts')
    expect((await svc(['install', '--auth=off', '--root', root.dir])).code).toBe(0)
    await expect(stat(root.path('/etc/avahi/services/svc.service'))).rejects.toThrow()
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

  it('--auth=off then --auth=basic again: off removes the proxy and the secrets, basic brings them back rotated; lines a user added stay', async () => {
    await using root = await stagingRoot()
    expect((await svc(['install', '--auth=basic', '--root', root.dir], basicEnv)).code).toBe(0)
    const first = { api: await root.env('/etc/svc/api.env'), chat: await root.env('/etc/svc/chat.env') }
    const caddyfile = await root.read('/etc/svc/Caddyfile')
    await writeFile(
      root.path('/etc/svc/api.env'),
      `${await root.read('/etc/svc/api.env')}OPENAI_API_KEY=sk-mine\n`,
    )

    const off = await svc(['install', '--auth=off', '--root', root.dir])
    expect(off.code).toBe(0)
    expect(off.stdout).toContain('systemctl disable --now caddy.service')
    const api = await root.env('/etc/svc/api.env')
    expect(api).toMatchObject({ SVC_AUTH_ENABLED: '0', OPENAI_API_KEY: 'sk-mine' })
    expect(api).not.toHaveProperty('SVC_PROXY_SECRET')
    expect(api).not.toHaveProperty('SVC_HOST')
    const chat = await root.env('/etc/svc/chat.env')
    for (const key of ['SVC_CHAT_API_TOKEN', 'SVC_PROXY_SECRET', 'SVC_CHAT_TRUSTED_HEADER'])
      expect(chat).not.toHaveProperty(key)
    expect(chat.SVC_CHAT_HOST).toBe('0.0.0.0') // auth off: the LAN is trusted, as for the API
    await expect(stat(root.path('/etc/systemd/system/caddy.service.d/svc.conf'))).rejects.toThrow()
    expect(await root.read('/etc/svc/Caddyfile')).toBe(caddyfile) // stays on disk
    expect(await root.read('/etc/svc/tokens.toml')).not.toContain(CHAT_TOKEN_LABEL)

    const again = await svc(['install', '--auth=basic', '--root', root.dir], {
      ...basicEnv,
      SVC_ADMIN_PASSWORD: 'another password',
    })
    expect(again.code).toBe(0)
    const second = { api: await root.env('/etc/svc/api.env'), chat: await root.env('/etc/svc/chat.env') }
    expect(second.api).toMatchObject({ SVC_AUTH_ENABLED: '1', OPENAI_API_KEY: 'sk-mine' })
    expect(second.api.SVC_PROXY_SECRET).toMatch(/^[A-Za-z0-9_-]{43}$/)
    expect(second.api.SVC_PROXY_SECRET).not.toBe(first.api.SVC_PROXY_SECRET)
    expect(second.chat.SVC_PROXY_SECRET).toMatch(/^[A-Za-z0-9_-]{43}$/)
    expect(second.chat.SVC_PROXY_SECRET).not.toBe(second.api.SVC_PROXY_SECRET)
    expect(second.chat.SVC_PROXY_SECRET).not.toBe(first.chat.SVC_PROXY_SECRET)
    expect(second.chat.SVC_CHAT_API_TOKEN).not.toBe(first.chat.SVC_CHAT_API_TOKEN)
    const rendered = await root.read('/etc/svc/Caddyfile')
    expect(rendered).toContain(second.api.SVC_PROXY_SECRET)
    expect(rendered).not.toContain(first.api.SVC_PROXY_SECRET)
    const hash = /^admin:(\S+)$/m.exec(await root.read('/etc/svc/admin.htpasswd'))?.[1] ?? ''
    expect(await bcrypt.compare('another password', hash)).toBe(true)
    const tokens = await root.read('/etc/svc/tokens.toml')
    expect(tokens.split(CHAT_TOKEN_LABEL)).toHaveLength(2) // exactly one chat token

    // a re-run without --auth keeps the proxy and its secret as they are
    const keep = await svc(['install', '--root', root.dir])
    expect(keep.code).toBe(0)
    expect(await root.env('/etc/svc/api.env')).toEqual(second.api)
    expect(await root.read('/etc/svc/Caddyfile')).toBe(rendered)
    // …and will not move the API away from where the proxy sends it
    const moved = await svc(['install', '--root', root.dir, '--api-port', '9090'])
    expect(moved.code).toBe(2)
    expect(moved.stderr).toContain('change ports together with --auth=basic')
    expect(await root.env('/etc/svc/api.env')).toEqual(second.api)
  })
})
