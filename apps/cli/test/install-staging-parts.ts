/** What the `svc install` staging tests share: the tools they need, the basic-auth answers, owners, ids, text. */
import { execFile } from 'node:child_process'
import { mkdtemp, readdir, readFile, rm, stat } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { missingPart } from '@svc/testing'
import { which } from '../src/install/exec'
import { PASSWORD, type StagingRoot } from './install-harness'

export const exec = promisify(execFile)
const TOOLS = ['caddy', 'systemd-sysusers', 'systemctl', 'systemd-analyze']
const missing = TOOLS.filter((t) => !which(t, process.env.PATH))
export const skip = missing.length
  ? missingPart(missing.join(', '), 'apt-get install caddy systemd (scripts/setup.sh)')
  : undefined

export const basicEnv = {
  SVC_ADMIN_USER: 'admin',
  SVC_ADMIN_PASSWORD: PASSWORD,
  SVC_HOSTNAME: 'svc-stage.local',
}

export async function idsOf(root: StagingRoot, name: string) {
  const line = (await root.read('/etc/passwd')).split('\n').find((l) => l.startsWith(`${name}:`))
  const group = (await root.read('/etc/group')).split('\n').find((l) => l.startsWith(`${name}:`))
  return { line, uid: Number(line?.split(':')[2]), gid: Number(group?.split(':')[2]) }
}

export async function owner(root: StagingRoot, target: string) {
  const st = await stat(root.path(target))
  return { mode: (st.mode & 0o7777).toString(8), uid: st.uid, gid: st.gid }
}

/** Every file under the root, as text (to look for a plaintext password). */
export async function allText(dir: string): Promise<string> {
  let text = ''
  for (const entry of await readdir(dir, { recursive: true, withFileTypes: true })) {
    if (entry.isFile()) text += await readFile(join(entry.parentPath, entry.name), 'latin1')
  }
  return text
}

export async function caddyValidate(file: string) {
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
