/**
 * The `UpstreamHandle` of a container: its output demultiplexed into a `LogRing`, `exited` from the
 * engine's wait API, and `stop` = stop with a timeout, then remove. A container that exits on its own
 * is removed too (its last lines stay in the ring): svc never leaves a container behind.
 */
import { constants } from 'node:os'
import { Writable } from 'node:stream'
import type { MemoryUse, UpstreamExit, UpstreamHandle } from '@svc/core'
import type Docker from 'dockerode'
import { LogRing } from './runtime'

export interface ContainerInfo {
  id: string
  name: string
  base: URL
  /** The reference it runs (`repo@sha256:…` or an image id). */
  image: string
  /** The program, for messages ("llama-server in container svc-primary-… exited …"). */
  program: string
  /** The upstream's own key (`UpstreamHandle.apiKey`). */
  apiKey?: string
}

const SIGNALS = Object.fromEntries(Object.entries(constants.signals).map(([name, n]) => [128 + n, name]))

/** Starts copying a container's output (raw multiplexed stream) into `ring`. */
export function pipeLogs(docker: Docker, stream: NodeJS.ReadableStream, ring: LogRing): void {
  const sink = () =>
    new Writable({
      write(chunk: Buffer, _encoding, done) {
        ring.push(chunk.toString('utf8'))
        done()
      },
    })
  docker.modem.demuxStream(stream, sink(), sink())
  stream.on('error', () => {}) // a dropped log connection must not crash svc; the ring keeps what it has
}

/** Stop answers 304 (already stopped) or 404 (already gone): both mean done. */
const ignoreGone = (error: unknown) => {
  const status = (error as { statusCode?: number }).statusCode
  if (status !== 304 && status !== 404 && status !== 409) throw error
}

/** Builds the handle; `logStream` is the container's attached or followed output. */
export function containerHandle(
  docker: Docker,
  info: ContainerInfo,
  logStream: NodeJS.ReadableStream | undefined,
  ring = new LogRing(),
): UpstreamHandle {
  const container = docker.getContainer(info.id)
  if (logStream) pipeLogs(docker, logStream, ring)
  const short = info.id.slice(0, 12)
  const exited: Promise<UpstreamExit> = container
    .wait()
    .then((r: { StatusCode?: number }) => {
      const code = typeof r.StatusCode === 'number' ? r.StatusCode : null
      const signal = code !== null && code > 128 ? (SIGNALS[code] ?? null) : null
      const how = signal ? `was killed by ${signal}` : `exited with code ${code}`
      const last = ring.last()
      return {
        code,
        signal,
        reason: `${info.program} (container ${info.name}) ${how}${last ? ` (last log line: ${last})` : ''}`,
      }
    })
    .catch((error: Error) => ({
      code: null,
      signal: null,
      reason: `lost container ${info.name}: ${error.message}`,
    }))
  // However it ends (stop, crash, kill), the container is removed; the ring keeps its last words.
  const removed = exited.then(() => {
    ;(logStream as { destroy?: () => void } | undefined)?.destroy?.()
    return removeContainer(docker, info.id)
  })
  let stopping: Promise<void> | undefined
  return {
    base: info.base,
    ...(info.apiKey ? { apiKey: info.apiKey } : {}),
    exited,
    describe: () => ({ container: short, name: info.name, image: info.image }),
    logs: () => ring.snapshot(),
    memoryUse: () => containerMemoryUse(container),
    stop(graceMs) {
      stopping ??= (async () => {
        await container.stop({ t: Math.max(1, Math.ceil(graceMs / 1000)) }).catch(ignoreGone)
        await removed
      })()
      return stopping
    },
  }
}

/**
 * The container's memory as `docker stats` shows it: cgroup usage less the page cache it could drop
 * (`inactive_file` on cgroup v2, `total_inactive_file` on v1). Undefined when the engine cannot say.
 */
export async function containerMemoryUse(container: Docker.Container): Promise<MemoryUse | undefined> {
  try {
    const stats = (await container.stats({ stream: false, 'one-shot': true } as { stream: false })) as {
      memory_stats?: { usage?: number; stats?: Record<string, number> }
    }
    const usage = stats.memory_stats?.usage
    if (typeof usage !== 'number' || usage <= 0) return undefined
    const cache =
      stats.memory_stats?.stats?.inactive_file ?? stats.memory_stats?.stats?.total_inactive_file ?? 0
    return { bytes: Math.max(0, usage - cache), by: 'container' }
  } catch {
    return undefined
  }
}

/**
 * Force-removes a container and resolves once the engine no longer knows it (a removal another caller
 * started answers 409 at once; wait for it). Never rejects: a container that will not go is left to
 * the next `recover`.
 */
export async function removeContainer(docker: Docker, id: string, timeoutMs = 15_000): Promise<void> {
  const container = docker.getContainer(id)
  try {
    await container.remove({ force: true })
    return
  } catch (error) {
    if ((error as { statusCode?: number }).statusCode === 404) return
  }
  const deadline = Date.now() + timeoutMs
  while (Date.now() < deadline) {
    const gone = await container.inspect().then(
      () => false,
      (error: { statusCode?: number }) => error.statusCode === 404,
    )
    if (gone) return
    await container.remove({ force: true }).catch(() => {})
    await new Promise((r) => setTimeout(r, 100))
  }
}

/** The host port the engine published for `port/tcp` on 127.0.0.1, from an inspect result. */
export function publishedPort(inspect: Docker.ContainerInspectInfo, port: number): number | undefined {
  const bindings = inspect.NetworkSettings?.Ports?.[`${port}/tcp`] ?? []
  const binding = bindings.find((b) => b.HostIp === '127.0.0.1') ?? bindings[0]
  const n = Number(binding?.HostPort)
  return Number.isInteger(n) && n > 0 ? n : undefined
}
