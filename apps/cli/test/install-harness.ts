/**
 * Test parts for `svc install`: a staging root that looks like a Debian system with Caddy installed
 * (this host's account files copied in, so the `caddy` group exists and `svc` does not), the real CLI
 * run as a child process against it, and a snapshot of the tree to prove a run changed nothing.
 */
import { createHash } from 'node:crypto'
import { copyFile, lstat, mkdir, mkdtemp, readdir, readFile, readlink, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { type CliResult, runSvc } from '@svc/testing'
import { parseEnvFile } from '../src/install/env-file'

export interface StagingRoot extends AsyncDisposable {
  dir: string
  /** This machine's path of a target path. */
  path(target: string): string
  read(target: string): Promise<string>
  env(target: string): Promise<Record<string, string>>
}

/** A temp dir with `etc/passwd`, `group`, `shadow`, `gshadow` copied from this host. */
export async function stagingRoot(): Promise<StagingRoot> {
  const dir = await mkdtemp(join(tmpdir(), 'svc-install-root-'))
  await mkdir(join(dir, 'etc'))
  for (const f of ['passwd', 'group', 'shadow', 'gshadow']) {
    await copyFile(join('/etc', f), join(dir, 'etc', f)).catch(() => undefined)
  }
  const path = (target: string) => join(dir, target)
  return {
    dir,
    path,
    read: (target) => readFile(path(target), 'utf8'),
    env: async (target) => parseEnvFile(await readFile(path(target), 'utf8')),
    async [Symbol.asyncDispose]() {
      await rm(dir, { recursive: true, force: true })
    },
  }
}

export type RunResult = CliResult

/** Runs the real CLI (`node apps/cli/bin/svc.js …`) with exactly `env` (plus PATH and HOME unless given). */
export function svc(args: string[], env: Record<string, string> = {}): Promise<RunResult> {
  return runSvc(args, { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/root', ...env })
}

/** Every path under `dir` with its type, mode, owner and a content hash (or link target). */
export async function snapshot(dir: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {}
  const walk = async (rel: string) => {
    const abs = join(dir, rel)
    const st = await lstat(abs)
    let what = `${(st.mode & 0o7777).toString(8)} ${st.uid}:${st.gid}`
    if (st.isSymbolicLink()) what += ` -> ${await readlink(abs)}`
    else if (st.isFile())
      what += ` ${createHash('sha256')
        .update(await readFile(abs))
        .digest('hex')}`
    out[rel || '.'] = what
    if (st.isDirectory()) for (const name of await readdir(abs)) await walk(join(rel, name))
  }
  await walk('')
  return out
}

/** The password the install tests use; asserted never to appear in any file or output. */
export const PASSWORD = 'Correct horse 42 battery staple'
