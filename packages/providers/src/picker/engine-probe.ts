/**
 * The two questions the picker asks a container engine (Docker, or podman's compatible socket via
 * `DOCKER_HOST`): does it answer, and which images does it hold. Both are bounded by a short timeout
 * so that `GET /api/hardware` never hangs on a dead socket.
 */
import Docker from 'dockerode'

/** The engine's place in a Docker Swarm: only a manager can create services (`runtime = "swarm"`). */
export type SwarmRole = 'manager' | 'worker' | 'inactive'

export type EngineProbe = () => Promise<{ ok: boolean; version?: string; error?: string; swarm?: SwarmRole }>

export interface ImageInventory {
  /** Image ids (`sha256:…`, the config digest): how local builds are pinned. */
  ids: Set<string>
  /** `repository@sha256:…`, Docker Hub names in their short form (no `docker.io/`, no `library/`). */
  repoDigests: Set<string>
}

/** Pings the engine at `DOCKER_HOST` (or the given client) and reads its version, within `timeoutMs`. */
export function dockerEngineProbe(docker?: Docker, timeoutMs = 1_500): EngineProbe {
  return async () => {
    const client = docker ?? new Docker({ timeout: timeoutMs })
    try {
      await withTimeout(client.ping(), timeoutMs)
      const info = (await withTimeout(client.version(), timeoutMs)) as {
        Version?: string
        ApiVersion?: string
      }
      const system = (await withTimeout(client.info(), timeoutMs).catch(() => undefined)) as
        | { Swarm?: { LocalNodeState?: string; ControlAvailable?: boolean } }
        | undefined
      return {
        ok: true,
        version: `${info.Version ?? '?'} (API ${info.ApiVersion ?? '?'})`,
        swarm: swarmRole(system?.Swarm),
      }
    } catch (error) {
      return { ok: false, error: (error as Error).message || String(error) }
    }
  }
}

/** `docker info`'s Swarm section → manager (may create services), worker, or inactive. */
export function swarmRole(
  swarm: { LocalNodeState?: string; ControlAvailable?: boolean } | undefined,
): SwarmRole {
  if (swarm?.LocalNodeState !== 'active') return 'inactive'
  return swarm.ControlAvailable ? 'manager' : 'worker'
}

/** Lists the engine's images as an inventory. Rejects when the engine does not answer. */
export async function dockerImageInventory(docker?: Docker): Promise<ImageInventory> {
  const client = docker ?? new Docker({ timeout: 5_000 })
  const images = await client.listImages()
  const ids = new Set<string>()
  const repoDigests = new Set<string>()
  for (const image of images) {
    ids.add(image.Id)
    for (const d of image.RepoDigests ?? []) repoDigests.add(normaliseRepo(d))
  }
  return { ids, repoDigests }
}

/** Docker lists Hub images without `docker.io/` and `library/`; compare names in that short form. */
export function normaliseRepo(ref: string): string {
  return ref.replace(/^(docker\.io|index\.docker\.io|registry-1\.docker\.io)\//, '').replace(/^library\//, '')
}

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms)
  })
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer))
}
