import { CliError } from '../context'
import type { Effects } from './effects'
import { which } from './exec'
import { CHAT_USER, LAYOUT, SERVICE_USER } from './layout'
import { readUserDb } from './user-db'

/** The system users svc's services run as: name, comment (GECOS) and home. */
export const SYSTEM_USERS = [
  { name: SERVICE_USER, comment: 'svc model server', home: LAYOUT.stateDir },
  { name: CHAT_USER, comment: 'svc chat app', home: LAYOUT.chatStateDir },
] as const

type SystemUser = (typeof SYSTEM_USERS)[number]

/**
 * Creates the `svc` and `svc-chat` system users and groups (homes `/var/lib/svc` and
 * `/var/lib/svc-chat`, no login) in the target root unless they exist. With systemd's
 * `systemd-sysusers` (which also works on a staging root) the accounts are declared in
 * `/etc/sysusers.d/svc.conf`; otherwise `useradd` (with `--prefix` for a staging root), or BusyBox's
 * `adduser` on the running system. Idempotent.
 */
export async function ensureServiceUsers(
  fx: Effects,
  env: Record<string, string | undefined>,
): Promise<void> {
  const db = readUserDb(fx.root)
  const missing = SYSTEM_USERS.filter((u) => db.uid(u.name) === undefined || db.gid(u.name) === undefined)
  for (const u of SYSTEM_USERS) if (!missing.includes(u)) fx.note(`user ${u.name} exists`)
  if (missing.length === 0) return
  const sysusers = which('systemd-sysusers', env.PATH)
  if (sysusers) {
    await fx.write(
      LAYOUT.sysusers,
      `# svc's system users (svc install)\n${SYSTEM_USERS.map((u) => `u ${u.name} - "${u.comment}" ${u.home}\n`).join('')}`,
      { mode: 0o644, user: 'root', group: 'root' },
    )
    const argv =
      fx.root === '/'
        ? [sysusers, LAYOUT.sysusers]
        : [sysusers, `--root=${fx.root}`, fx.local(LAYOUT.sysusers)]
    await fx.run(argv, `create the ${missing.map((u) => u.name).join(' and ')} user`)
    return
  }
  for (const u of missing) await createUser(fx, env, u)
}

async function createUser(
  fx: Effects,
  env: Record<string, string | undefined>,
  u: SystemUser,
): Promise<void> {
  const useradd = which('useradd', env.PATH)
  if (useradd) {
    const prefix = fx.root === '/' ? [] : ['--prefix', fx.root]
    await fx.run(
      [
        useradd,
        ...prefix,
        '--system',
        '--user-group',
        '--home-dir',
        u.home,
        '--no-create-home',
        '--shell',
        nologin(env),
        '--comment',
        u.comment,
        u.name,
      ],
      `create the ${u.name} user`,
    )
    return
  }
  const adduser = which('adduser', env.PATH)
  const addgroup = which('addgroup', env.PATH)
  if (adduser && addgroup && fx.root === '/') {
    await fx.run([addgroup, '-S', u.name], `create the ${u.name} group`)
    await fx.run(
      [adduser, '-S', '-D', '-H', '-h', u.home, '-s', nologin(env), '-G', u.name, '-g', u.comment, u.name],
      `create the ${u.name} user`,
    )
    return
  }
  throw new CliError(
    `cannot create the ${u.name} user: none of systemd-sysusers, useradd or adduser is on PATH${fx.root === '/' ? '' : ' (with --root: systemd-sysusers or useradd)'}`,
  )
}

function nologin(env: Record<string, string | undefined>): string {
  return which('nologin', `${env.PATH ?? ''}:/usr/sbin:/sbin`) ?? '/sbin/nologin'
}
