import { mkdir, stat, writeFile } from 'node:fs/promises'
import bcrypt from 'bcryptjs'
import { beforeAll, describe, expect, it } from 'vitest'
import { CHAT_TOKEN_LABEL } from '../src/install/chat-token'
import { defaultHostname } from '../src/install/host-name'
import { PASSWORD, snapshot, stagingRoot, svc } from './install-harness'
import { allText, basicEnv, caddyValidate, idsOf, owner, skip } from './install-staging-parts'

describe.skipIf(skip)('svc install --auth into a staging root', () => {
  beforeAll(() => {
    expect(process.getuid?.()).toBe(0) // owners are set, as on a real install
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
