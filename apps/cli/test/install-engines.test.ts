/**
 * The engines setup built must run in the installed service. `./scripts/setup.sh` builds them under
 * the installing user's home (`~/.cache/svc/engines`), and svc-api.service runs as svc with
 * `ProtectHome=yes`. systemd is not PID 1 here, so the unit's sandbox is emulated with the parts
 * that matter: a mount namespace with empty tmpfs over /root, /home, /run/user and the home setup
 * built in (what ProtectHome=yes does), and the process run as the svc user's uid and gid with no
 * other groups and no new privileges (User=, Group=, NoNewPrivileges=). The installed files are
 * made visible at their target paths by a bind mount of the staging root's /usr/local/lib/svc.
 */
import { chmod, copyFile, mkdir, mkdtemp, rm, stat, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { delimiter, dirname, join } from 'node:path'
import {
  BUILT_ENTRIES,
  ensureBuilt,
  LISTENING,
  missingPart,
  requireLlamaServer,
  startServerProcess,
  writeTinyGguf,
} from '@svc/testing'
import { beforeAll, describe, expect, it } from 'vitest'
import { runCommand, which } from '../src/install/exec'
import { type StagingRoot, stagingRoot, svc } from './install-harness'

const binary = requireLlamaServer()
const TOOLS = ['unshare', 'setpriv', 'mount', 'systemd-sysusers']
const missing = TOOLS.filter((t) => !which(t, process.env.PATH))
const skip =
  !binary || (missing.length ? missingPart(missing.join(', '), 'apt-get install util-linux systemd') : false)

/** PATH without the directories that hold an engine: the installer must find the cache build. */
const PATH = (process.env.PATH ?? '')
  .split(delimiter)
  .filter((d) => !which('llama-server', d) && !which('whisper-server', d))
  .join(delimiter)

/** The `svc` user of the staging root. */
async function svcIds(root: StagingRoot): Promise<{ uid: number; gid: number }> {
  const line = (await root.read('/etc/passwd')).split('\n').find((l) => l.startsWith('svc:'))
  const [, , uid, gid] = line?.split(':') ?? []
  return { uid: Number(uid), gid: Number(gid) }
}

/**
 * argv that runs `command` with exactly `env`, as the unit would: svc's uid/gid, no groups, no new
 * privileges, the homes (and `hide`) covered by empty tmpfs, the staged /usr/local/lib/svc at its
 * target path (over a tmpfs /usr/local/lib, into which the box's other folders there are bound back:
 * setup's Node lives in /usr/local/lib/nodejs).
 */
function sandboxed(
  root: StagingRoot,
  ids: { uid: number; gid: number },
  hide: string,
  env: Record<string, string>,
  command: string[],
): string[] {
  const script = `set -eu
for d in /root /home /run/user "$1"; do [ -d "$d" ] && mount -t tmpfs -o mode=0755 tmpfs "$d"; done
keep=$(mktemp -d)
mount --bind /usr/local/lib "$keep"
mount -t tmpfs -o mode=0755 tmpfs /usr/local/lib
for e in "$keep"/*; do
  n=\${e##*/}
  [ -d "$e" ] && [ "$n" != svc ] && mkdir "/usr/local/lib/$n" && mount --bind "$e" "/usr/local/lib/$n"
done
mkdir /usr/local/lib/svc
mount --bind "$2" /usr/local/lib/svc
shift 2
exec setpriv --reuid=${ids.uid} --regid=${ids.gid} --clear-groups --no-new-privs -- env -i "$@"`
  return [
    'unshare',
    '--mount',
    '--propagation',
    'private',
    '--',
    'sh',
    '-c',
    script,
    'sandbox',
    hide,
    root.path('/usr/local/lib/svc'),
    ...Object.entries(env).map(([k, v]) => `${k}=${v}`),
    ...command,
  ]
}

function run(argv: string[]) {
  return runCommand(argv, { env: { PATH: process.env.PATH } })
}

describe.skipIf(skip)('svc install: the engines setup built run in the sandboxed service', () => {
  beforeAll(async () => {
    expect(process.getuid?.()).toBe(0)
    await ensureBuilt('cli')
  }, 120_000)

  it('copies the cache build out of the home, names it in api.env, and the API as svc (home hidden) loads a slot with it', async () => {
    await using root = await stagingRoot()
    await chmod(root.dir, 0o755) // mkdtemp's 0700 would keep the svc user out of the whole tree
    const home = await mkdtemp(join(tmpdir(), 'svc-setup-home-'))
    try {
      // what setup leaves: ~/.cache/svc/engines/llama-server/<version>/llama-server
      const built = join(home, '.cache/svc/engines/llama-server/v0-test-cpu/llama-server')
      await mkdir(dirname(built), { recursive: true })
      await copyFile(binary!, built)
      await chmod(built, 0o755)

      const r = await svc(['install', '--root', root.dir], { HOME: home, PATH })
      expect(r.stderr).toBe('')
      expect(r.code).toBe(0)
      const installed = '/usr/local/lib/svc/engines/llama-server/v0-test-cpu/llama-server'
      const api = await root.env('/etc/svc/api.env')
      expect(api.SVC_LLAMA_SERVER).toBe(installed)
      const st = await stat(root.path(installed))
      expect([(st.mode & 0o7777).toString(8), st.uid, st.gid]).toEqual(['755', 0, 0])
      expect((await stat(root.path('/usr/local/lib/svc'))).mode & 0o777).toBe(0o755)

      const ids = await svcIds(root)
      const baseEnv = { PATH: `${dirname(process.execPath)}:/usr/bin:/bin`, HOME: '/var/lib/svc' }
      const version = await run(sandboxed(root, ids, home, baseEnv, [installed, '--version']))
      expect(version.output).toMatch(/version: \d+/)
      expect(version.code).toBe(0)
      // the sandbox really hides the home: the build setup made is not there for svc
      const hidden = await run(sandboxed(root, ids, home, baseEnv, ['/bin/ls', built]))
      expect(hidden.code).not.toBe(0)

      // the API as the unit starts it, with the rendered api.env (its dirs moved into the staging root)
      const state = root.path('/var/lib/svc')
      const config = root.path('/etc/svc')
      await mkdir(join(config, 'slots'), { recursive: true })
      await writeFile(
        join(config, 'slots/primary.toml'),
        'runtime = "process"\nbackend = "cpu"\nargs = ["-c", "256", "-np", "1", "--threads", "1"]\n',
        { mode: 0o644 },
      )
      const gguf = await writeTinyGguf(join(state, 'tiny-chat.gguf'), { role: 'chat' })
      await chmod(gguf.path, 0o644)
      const env = {
        ...baseEnv,
        ...api,
        HOME: state,
        SVC_CONFIG_DIR: config,
        SVC_STATE_DIR: state,
        SVC_CACHE_DIR: join(state, 'cache'),
        SVC_HOST: '127.0.0.1',
        SVC_PORT: '0',
      }
      const [cmd, ...args] = sandboxed(root, ids, home, env, [process.execPath, BUILT_ENTRIES.cli, 'serve'])
      await using server = await startServerProcess({
        command: cmd!,
        args,
        spawn: { cwd: state },
        ready: LISTENING.api,
        what: 'svc serve (sandboxed)',
        timeoutMs: 60_000,
      })
      const load = await fetch(`${server.url}/api/slots/primary/load?wait=true`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ model: gguf.path }),
      })
      expect(load.status, `${await load.clone().text()}\n${server.output()}`).toBe(200)
      const slot = (await (await fetch(`${server.url}/api/slots/primary`)).json()) as {
        upstream: { pid: number }
      }
      const owner = (await stat(`/proc/${slot.upstream.pid}`)).uid
      expect(owner).toBe(ids.uid)
    } finally {
      await rm(home, { recursive: true, force: true })
    }
  }, 180_000)
})
