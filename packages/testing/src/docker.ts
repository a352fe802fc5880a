/**
 * A real Docker Engine for tests. `ensureDockerEngine()` pings the engine at `DOCKER_HOST` (default
 * /var/run/docker.sock); when none answers and this is root on a box with `dockerd`, it starts one in
 * the background and leaves it running for later test files (like a system service: starting an
 * engine per file would cost seconds each). Images are made locally (`docker import` of a rootfs
 * holding host binaries and the libraries `ldd` names); nothing comes from Docker Hub.
 */
import { execFile, spawn } from 'node:child_process'
import { copyFileSync, mkdirSync, openSync, readFileSync, rmSync, statSync } from 'node:fs'
import { mkdtemp, rm } from 'node:fs/promises'
import { request } from 'node:http'
import { tmpdir } from 'node:os'
import { basename, dirname, join } from 'node:path'
import { promisify } from 'node:util'
import { missingPart } from './require-part'
import { testEnv } from './test-env'
import { findOnPath } from './which'

const execFileAsync = promisify(execFile)

export interface DockerEngine {
  /** Unix socket of the engine. */
  socket: string
  /** Whether this call started `dockerd` (it is left running). */
  startedHere: boolean
}

const DEFAULT_SOCKET = '/var/run/docker.sock'
const LOCK = join(tmpdir(), 'svc-dockerd-start.lock')

/** The unix socket `DOCKER_HOST` names (default /var/run/docker.sock); undefined for tcp:// hosts. */
export function dockerSocket(host = testEnv.dockerHost): string | undefined {
  if (!host) return DEFAULT_SOCKET
  return host.startsWith('unix://') ? host.slice('unix://'.length) || DEFAULT_SOCKET : undefined
}

/** `GET /_ping` on a unix socket; true when the engine answers OK within `timeoutMs`. */
export function pingDocker(socket: string, timeoutMs = 2_000): Promise<boolean> {
  return new Promise((resolve) => {
    const req = request({ socketPath: socket, path: '/_ping', timeout: timeoutMs }, (res) => {
      res.resume()
      resolve(res.statusCode === 200)
    })
    req.on('timeout', () => req.destroy())
    req.on('error', () => resolve(false))
    req.end()
  })
}

/**
 * Returns the engine, starting `dockerd` when none answers. Missing or unstartable engine: a failure
 * in CI (`CI=true`), a loud skip elsewhere (see `missingPart`).
 */
export async function ensureDockerEngine(
  timeoutMs = 60_000,
): Promise<DockerEngine | { skip: true; reason: string }> {
  const socket = dockerSocket()
  if (!socket) return missingPart('Docker Engine', `DOCKER_HOST=${testEnv.dockerHost} is not a unix socket`)
  if (await pingDocker(socket)) return { socket, startedHere: false }
  if (socket !== DEFAULT_SOCKET && testEnv.dockerHost) {
    return missingPart('Docker Engine', `nothing answers at DOCKER_HOST=${testEnv.dockerHost}`)
  }
  const dockerd = findOnPath('dockerd')
  if (!dockerd) return missingPart('Docker Engine', 'dockerd is not installed (apt-get install docker.io)')
  if (process.getuid?.() !== 0)
    return missingPart('Docker Engine', 'no engine runs and only root may start dockerd')
  if (!takeLock()) return (await waitForPing(socket, timeoutMs)) ? { socket, startedHere: false } : noEngine()
  try {
    // Plain flags first; a sandbox that refuses iptables gets a second try without it (ports are still
    // published on 127.0.0.1 through docker-proxy).
    for (const extra of [[], ['--iptables=false']]) {
      const log = join(tmpdir(), 'svc-dockerd.log')
      const out = openSync(log, 'a')
      const child = spawn(dockerd, [`--host=unix://${socket}`, ...extra], {
        detached: true,
        stdio: ['ignore', out, out],
      })
      child.unref()
      let exited = false
      child.once('exit', () => {
        exited = true
      })
      const deadline = Date.now() + timeoutMs
      while (!exited && Date.now() < deadline) {
        if (await pingDocker(socket, 1_000)) return { socket, startedHere: true }
        await sleep(250)
      }
      if (!exited && child.pid) process.kill(child.pid, 'SIGTERM')
    }
    return noEngine()
  } finally {
    rmSync(LOCK, { recursive: true, force: true })
  }
}

function noEngine(): { skip: true; reason: string } {
  const log = join(tmpdir(), 'svc-dockerd.log')
  let tail = ''
  try {
    tail = readFileSync(log, 'utf8').split('\n').slice(-5).join(' | ')
  } catch {
    // no log
  }
  return missingPart('Docker Engine', `dockerd did not come up (log ${log}: ${tail})`)
}

/** One test worker starts dockerd; the others wait for its ping. A lock older than 2 min is stale. */
function takeLock(): boolean {
  try {
    mkdirSync(LOCK)
    return true
  } catch {
    try {
      if (Date.now() - statSync(LOCK).mtimeMs > 120_000) {
        rmSync(LOCK, { recursive: true, force: true })
        mkdirSync(LOCK)
        return true
      }
    } catch {
      // somebody else took it
    }
    return false
  }
}

async function waitForPing(socket: string, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs
  while (Date.now() < deadline) {
    if (await pingDocker(socket, 1_000)) return true
    await sleep(250)
  }
  return false
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

/** Runs the `docker` CLI; resolves with stdout, rejects with stderr in the message. */
export async function docker(args: string[]): Promise<string> {
  try {
    const { stdout } = await execFileAsync('docker', args, { maxBuffer: 16 * 1024 * 1024 })
    return stdout.trim()
  } catch (error) {
    const e = error as { stderr?: string; message: string }
    throw new Error(`docker ${args.join(' ')}: ${e.stderr?.trim() || e.message}`)
  }
}

export interface RootfsImageOptions {
  /** Image name and tag to give it (`127.0.0.1:5000/svc-test/llama:1`). */
  tag: string
  /** Host executables to put in /usr/bin, with every library `ldd` lists at its host path. */
  binaries: readonly string[]
  /** Dockerfile-style `ENV` for the image. PATH defaults to /usr/bin:/bin. */
  env?: Record<string, string>
  /** More files: path in the image → path on the host. */
  files?: Record<string, string>
  /** Dockerfile-style `WORKDIR`. */
  workdir?: string
}

/** `docker import`s a minimal rootfs holding `binaries` and their libraries; returns the image id. */
export async function buildRootfsImage(options: RootfsImageOptions): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'svc-rootfs-'))
  try {
    const root = join(dir, 'rootfs')
    mkdirSync(join(root, 'tmp'), { recursive: true })
    for (const bin of options.binaries) {
      place(bin, join(root, 'usr/bin', basename(bin)))
      for (const lib of await sharedLibraries(bin)) place(lib, join(root, lib))
    }
    for (const [inImage, onHost] of Object.entries(options.files ?? {})) place(onHost, join(root, inImage))
    const tar = join(dir, 'rootfs.tar')
    await execFileAsync('tar', ['-C', root, '-cf', tar, '.'])
    const env = { PATH: '/usr/bin:/bin', ...options.env }
    const changes = Object.entries(env).flatMap(([k, v]) => ['--change', `ENV ${k}=${v}`])
    if (options.workdir) changes.push('--change', `WORKDIR ${options.workdir}`)
    return await docker(['import', ...changes, tar, options.tag])
  } finally {
    await rm(dir, { recursive: true, force: true })
  }
}

/**
 * Builds the image (`buildRootfsImage`), pushes it to the registry its tag names, and removes it from
 * the engine again, so that the code under test has to pull it. Returns the local image id it had.
 */
export async function publishRootfsImage(options: RootfsImageOptions): Promise<string> {
  const id = await buildRootfsImage(options)
  await docker(['push', options.tag])
  await docker(['rmi', '-f', id])
  return id
}

function place(from: string, to: string): void {
  mkdirSync(dirname(to), { recursive: true })
  copyFileSync(from, to)
}

/** Absolute paths of the shared libraries (and the loader) `ldd` resolves for `binary`. */
export async function sharedLibraries(binary: string): Promise<string[]> {
  const { stdout } = await execFileAsync('ldd', [binary])
  return [...stdout.matchAll(/(?:=>\s*)?(\/\S+)\s+\(0x/g)].map((m) => m[1] as string)
}

/** Force-removes every container carrying `label` (`key=value`). Returns how many. */
export async function removeContainersByLabel(label: string): Promise<number> {
  const ids = (await docker(['ps', '-aq', '--filter', `label=${label}`])).split('\n').filter(Boolean)
  if (ids.length > 0) await docker(['rm', '-f', ...ids])
  return ids.length
}
