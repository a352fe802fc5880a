import { CliError } from '../context'
import type { Effects } from './effects'
import { which } from './exec'
import { LAYOUT, SERVICE_USER } from './layout'
import { readUserDb } from './user-db'

const COMMENT = 'svc model server'

/**
 * Creates the `svc` system user and group (home `/var/lib/svc`, no login) in the target root unless
 * it exists. With systemd's `systemd-sysusers` (which also works on a staging root) the account is
 * declared in `/etc/sysusers.d/svc.conf`; otherwise `useradd` (with `--prefix` for a staging root),
 * or BusyBox's `adduser` on the running system. Idempotent.
 */
export async function ensureServiceUser(fx: Effects, env: Record<string, string | undefined>): Promise<void> {
  const db = readUserDb(fx.root)
  if (db.uid(SERVICE_USER) !== undefined && db.gid(SERVICE_USER) !== undefined) {
    fx.note(`user ${SERVICE_USER} exists`)
    return
  }
  const sysusers = which('systemd-sysusers', env.PATH)
  if (sysusers) {
    await fx.write(
      LAYOUT.sysusers,
      `# svc's system user (svc install)\nu ${SERVICE_USER} - "${COMMENT}" ${LAYOUT.stateDir}\n`,
      {
        mode: 0o644,
        user: 'root',
        group: 'root',
      },
    )
    const argv =
      fx.root === '/'
        ? [sysusers, LAYOUT.sysusers]
        : [sysusers, `--root=${fx.root}`, fx.local(LAYOUT.sysusers)]
    await fx.run(argv, `create the ${SERVICE_USER} user`)
    return
  }
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
        LAYOUT.stateDir,
        '--no-create-home',
        '--shell',
        nologin(env),
        '--comment',
        COMMENT,
        SERVICE_USER,
      ],
      `create the ${SERVICE_USER} user`,
    )
    return
  }
  const adduser = which('adduser', env.PATH)
  const addgroup = which('addgroup', env.PATH)
  if (adduser && addgroup && fx.root === '/') {
    await fx.run([addgroup, '-S', SERVICE_USER], `create the ${SERVICE_USER} group`)
    await fx.run(
      [
        adduser,
        '-S',
        '-D',
        '-H',
        '-h',
        LAYOUT.stateDir,
        '-s',
        nologin(env),
        '-G',
        SERVICE_USER,
        '-g',
        COMMENT,
        SERVICE_USER,
      ],
      `create the ${SERVICE_USER} user`,
    )
    return
  }
  throw new CliError(
    `cannot create the ${SERVICE_USER} user: none of systemd-sysusers, useradd or adduser is on PATH${fx.root === '/' ? '' : ' (with --root: systemd-sysusers or useradd)'}`,
  )
}

function nologin(env: Record<string, string | undefined>): string {
  return which('nologin', `${env.PATH ?? ''}:/usr/sbin:/sbin`) ?? '/sbin/nologin'
}
