/**
 * The `UpstreamHandle` of a swarm service: its replicas are the running tasks (`members`), its logs
 * the service's logs, and it counts as exited when the service disappears (removed by hand) — a
 * replica that dies is the swarm's to replace and the slot's replica set's to route around. `stop`
 * removes the service and waits until its task containers on this engine are gone.
 */
import type { UpstreamExit, UpstreamHandle } from '@svc/core'
import type Docker from 'dockerode'
import { pipeLogs } from './container-handle'
import { LogRing } from './runtime'
import { SWARM_TASK_LABEL } from './swarm-spec'
import { runningMembers } from './swarm-tasks'

export interface SwarmServiceInfo {
  id: string
  name: string
  /** The first running replica when the handle was made: where a single-upstream caller goes. */
  base: URL
  port: number
  image: string
  replicas: number
  /** The upstream's own key (`UpstreamHandle.apiKey`), the same in every replica. */
  apiKey?: string
}

export interface SwarmHandleOptions {
  /** How often the service is checked for existence (ms). Default 2 s. */
  watchMs?: number
  logLines?: number
}

/** Removes a service; a service that is already gone is fine. */
export async function removeService(docker: Docker, id: string): Promise<void> {
  await docker
    .getService(id)
    .remove()
    .catch((error: { statusCode?: number }) => {
      if (error.statusCode !== 404) throw error
    })
}

/** Waits (bounded) until no container of the service's tasks is left on this engine. */
export async function serviceContainersGone(docker: Docker, name: string, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs
  while (Date.now() < deadline) {
    const left = await docker
      .listContainers({ all: true, filters: { label: [`${SWARM_TASK_LABEL}=${name}`] } })
      .catch(() => [])
    if (left.length === 0) return
    await new Promise((r) => setTimeout(r, 250))
  }
}

export function swarmHandle(
  docker: Docker,
  info: SwarmServiceInfo,
  options: SwarmHandleOptions = {},
): UpstreamHandle {
  const ring = new LogRing(options.logLines)
  const service = docker.getService(info.id)
  let logStream: NodeJS.ReadableStream | undefined
  void service
    .logs({ follow: true, stdout: true, stderr: true, tail: 200 })
    .then((stream) => {
      logStream = stream as unknown as NodeJS.ReadableStream
      if (done) (logStream as { destroy?: () => void }).destroy?.()
      else pipeLogs(docker, logStream, ring)
    })
    .catch(() => undefined) // no logs is not a reason to fail the slot
  let done = false
  let resolveExit!: (exit: UpstreamExit) => void
  const exited = new Promise<UpstreamExit>((resolve) => {
    resolveExit = resolve
  })
  const finish = (exit: UpstreamExit) => {
    if (done) return
    done = true
    clearInterval(watch)
    ;(logStream as { destroy?: () => void } | undefined)?.destroy?.()
    resolveExit(exit)
  }
  const watch = setInterval(() => {
    service.inspect().catch((error: { statusCode?: number }) => {
      if (error.statusCode === 404) {
        finish({ code: null, signal: null, reason: `swarm service ${info.name} was removed` })
      }
    })
  }, options.watchMs ?? 2_000)
  watch.unref()
  let stopping: Promise<void> | undefined
  return {
    base: info.base,
    ...(info.apiKey ? { apiKey: info.apiKey } : {}),
    exited,
    describe: () => ({ service: info.name, replicas: info.replicas, image: info.image }),
    logs: () => ring.snapshot(),
    members: () => runningMembers(docker, info.name, info.port),
    stop(graceMs) {
      stopping ??= (async () => {
        await removeService(docker, info.id).catch(() => undefined)
        await serviceContainersGone(docker, info.name, graceMs + 15_000)
        finish({ code: 0, signal: null, reason: `swarm service ${info.name} removed` })
      })()
      return stopping
    },
  }
}
