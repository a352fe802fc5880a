/**
 * svc runs on a supported Node: the test run's own Node and the `node` a test spawns from PATH (what
 * `pnpm test`, `pnpm start` and the CLI get) are 22 or newer, and in CI (where ./scripts/setup.sh ran
 * on the box first) the pinned LTS, 24. And scripts/install-node.sh, which setup runs first, installs
 * that Node from npm where the box's `node` is older (Debian 12's NodeSource 20, say), and on a second
 * run does nothing.
 */
import { execFile, execFileSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { chmod, mkdtemp, rm, stat, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import {
  INSTALL_NODE,
  NODE_PIN,
  nodeMajor,
  nodeVersionOf,
  REPO_ROOT,
  requiredNodeMajor,
  testEnv,
} from '@svc/testing'
import { afterAll, describe, expect, it } from 'vitest'

const PKG = JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as { engines: { node: string } }

/** A supported Node: 22+ anywhere, the pinned major (24) in CI. */
function expectSupported(version: string) {
  expect(nodeMajor(version)).toBeGreaterThanOrEqual(requiredNodeMajor())
}

describe('the Node svc runs on', () => {
  it('is pinned once: engines says the oldest supported Node, setup installs a newer LTS', () => {
    expect(PKG.engines.node).toBe(`>=${NODE_PIN.min}`)
    expect(NODE_PIN.major).toBeGreaterThanOrEqual(24)
    expect(NODE_PIN.version).toMatch(/^\d+\.\d+\.\d+$/)
  })

  it('runs this test, and is the `node` a test finds on PATH', () => {
    expectSupported(process.version)
    expectSupported(nodeVersionOf('node'))
    // a non-login shell's PATH (cron, `bash -c`): /usr/local/bin, where setup links Node, comes first.
    // Only where setup ran (CI): a developer's Node may live where bash's default PATH does not look.
    if (testEnv.ci)
      expectSupported(execFileSync('/bin/bash', ['-c', 'node --version'], { env: {}, encoding: 'utf8' }))
  })
})

/** A `node` that answers --version as Node 20 and otherwise is this Node (npm runs on it). */
async function oldNode(dir: string): Promise<string> {
  const file = join(dir, 'node')
  await writeFile(
    file,
    `#!/bin/sh\n[ "$1" = --version ] && { echo v20.19.5; exit 0; }\nexec ${process.execPath} "$@"\n`,
  )
  await chmod(file, 0o755)
  return dir
}

function installNode(env: NodeJS.ProcessEnv) {
  return new Promise<{ code: number; out: string; err: string }>((resolve) => {
    execFile('bash', [INSTALL_NODE], { env, timeout: 300_000 }, (error, out, err) => {
      resolve({ code: error ? Number(error.code ?? 1) : 0, out: out.trim(), err })
    })
  })
}

describe('scripts/install-node.sh on a box whose node is 20', () => {
  const dirs: string[] = []
  afterAll(async () => {
    for (const d of dirs) await rm(d, { recursive: true, force: true })
  })

  it('installs the pinned Node from npm under its prefix, links bin/node, and the second run does nothing', async () => {
    const prefix = await mkdtemp(join(tmpdir(), 'svc-node-prefix-'))
    const shim = await mkdtemp(join(tmpdir(), 'svc-node-20-'))
    dirs.push(prefix, shim)
    const path = `${await oldNode(shim)}:/usr/sbin:/usr/bin:/sbin:/bin`
    const env = { HOME: process.env.HOME, PATH: path, SVC_NODE_PREFIX: prefix }
    expect(nodeVersionOf('node', env)).toBe('v20.19.5')

    const first = await installNode(env)
    expect(first.code, first.err).toBe(0)
    expect(first.err).toContain(`installing Node ${NODE_PIN.version} from npm`)
    expect(first.out).toBe(join(prefix, 'bin'))
    expect(nodeVersionOf(join(prefix, 'bin/node'))).toBe(`v${NODE_PIN.version}`)
    // what setup does with the answer: that bin directory first on PATH
    expect(nodeVersionOf('node', { ...env, PATH: `${first.out}:${path}` })).toBe(`v${NODE_PIN.version}`)
    // npm run on it installs globals under the prefix (where PATH looks), not inside the Node's folder
    const npmPrefix = execFileSync('npm', ['config', 'get', 'prefix'], {
      env: { ...env, PATH: `${first.out}:${path}` },
      encoding: 'utf8',
    })
    expect(npmPrefix.trim()).toBe(prefix)

    const home = join(prefix, `lib/nodejs/node-v${NODE_PIN.version}-linux-${process.arch}`)
    const installedAt = (await stat(home)).mtimeMs
    const second = await installNode({ ...env, PATH: `${first.out}:${path}` })
    expect(second.code, second.err).toBe(0)
    expect(second.err).toContain(`Node v${NODE_PIN.version} present`)
    expect(second.err).not.toContain('installing')
    expect((await stat(home)).mtimeMs).toBe(installedAt)
  }, 300_000)

  it('refuses a tarball that does not match the pinned sha512, and installs nothing', async () => {
    const prefix = await mkdtemp(join(tmpdir(), 'svc-node-prefix-'))
    const bin = await mkdtemp(join(tmpdir(), 'svc-node-20-'))
    dirs.push(prefix, bin)
    // an npm whose `pack` hands over some other tarball under the expected name
    await writeFile(
      join(bin, 'npm'),
      `#!/bin/sh\n[ "$1" = pack ] || exit 1\necho tampered | gzip > "node-linux-${process.arch}-${NODE_PIN.version}.tgz"\n`,
    )
    await chmod(join(bin, 'npm'), 0o755)
    const env = {
      HOME: process.env.HOME,
      PATH: `${await oldNode(bin)}:/usr/sbin:/usr/bin:/sbin:/bin`,
      SVC_NODE_PREFIX: prefix,
    }
    const r = await installNode(env)
    expect(r.code).not.toBe(0)
    expect(r.err).toContain('does not match its pinned sha512: not installed')
    expect(r.out).toBe('')
    await expect(stat(join(prefix, 'bin/node'))).rejects.toThrow(/ENOENT/)
    await expect(stat(join(prefix, 'lib/nodejs'))).rejects.toThrow(/ENOENT/)
  })
})
