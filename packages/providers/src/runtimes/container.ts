/**
 * The `container` runtime: each upstream runs in a container of the provider's image, pinned by
 * digest in `manifests/images.toml`, through the Docker Engine API (dockerode; `DOCKER_HOST` points it
 * at podman's compatible socket just as well).
 *
 * - `needsPull` / `pull`: pulls `repository@sha256:…` with layer progress summed into one figure.
 *   Local builds (`source = "local"`) are never pulled; they run by image id.
 * - `start`: creates the container (spec in container-spec.ts) with the provider's env and argv, the
 *   model's directory mounted read-only at `/models`, the port published on 127.0.0.1, and labels
 *   naming svc's instance, the slot, the model and the image; attaches its output to a log ring.
 * - `recover`: adopts the healthy running container this instance labelled for the slot and removes
 *   its others (recover-owned.ts, the rules it shares with the swarm runtime).
 */
import { mkdir } from 'node:fs/promises'
import { SvcError, type UpstreamHandle } from '@svc/core'
import Docker from 'dockerode'
import type { ImageEntry } from '../manifest/manifest'
import { containerHandle, publishedPort, removeContainer } from './container-handle'
import { pullImage } from './container-pull'
import { containerSpec, LABELS, type Mount } from './container-spec'
import { engineMessage, type ImageRuntimeOptions, imageUpstreamInput, resolveImage } from './image-upstream'
import { recoverOwned } from './recover-owned'
import { LogRing, type Runtime, type RuntimeStartRequest } from './runtime'
import { envValue } from './upstream-key'
import { volumeHostDir } from './volumes'

export interface ContainerRuntimeOptions extends ImageRuntimeOptions {
  /** Volumes of image entries live under `<stateDir>/volumes/`. */
  stateDir: string
  /** Log lines kept per upstream. Default 500. */
  logLines?: number
}

export { MODEL_MOUNT, PROJECTOR_MOUNT } from './model-mounts'

export function createContainerRuntime(options: ContainerRuntimeOptions): Runtime {
  const docker = options.docker ?? new Docker()
  const scope = { [LABELS.managed]: 'true', ...options.labels }

  const imageOf = (req: Pick<RuntimeStartRequest, 'provider' | 'backend' | 'model'>) =>
    resolveImage(options.manifest, req, '; use runtime = "process" or another backend')

  const hasImage = async (reference: string) =>
    docker
      .getImage(reference)
      .inspect()
      .then(
        () => true,
        (error: { statusCode?: number }) => {
          if (error.statusCode === 404) return false
          throw engineError(error)
        },
      )

  return {
    kind: 'container',

    async needsPull(req) {
      const { entry, reference } = imageOf(req)
      return entry.source !== 'local' && !(await hasImage(reference))
    },

    async pull(req, onProgress) {
      const { name, entry, reference } = imageOf(req)
      if (entry.source === 'local') throw localImageMissing(name, entry)
      if (await hasImage(reference)) return
      await pullImage(docker, reference, onProgress, req.signal)
    },

    async start(req) {
      const image = imageOf(req)
      const { name: entryName, entry, reference } = image
      const volumes: Mount[] = []
      for (const volume of entry.volumes ?? []) {
        const [dir = '', container = ''] = volume.split(/:(.*)/s)
        const host = volumeHostDir(options.stateDir, dir)
        await mkdir(host, { recursive: true })
        volumes.push({ host, container, readOnly: false })
      }
      const input = imageUpstreamInput({
        req,
        image,
        runtime: 'container',
        options,
        scope,
        volumes,
      })
      const { name, port } = input
      const program = input.program ?? input.argv[0]
      if (!program) throw new Error(`provider ${req.provider.kind} returned an empty start command`)
      const spec = containerSpec(input)
      req.signal.throwIfAborted()
      const container = await docker.createContainer(spec).catch((error: { statusCode?: number }) => {
        if (error.statusCode === 404 && entry.source === 'local') throw localImageMissing(entryName, entry)
        throw new Error(`cannot create the ${req.slot} container from ${reference}: ${engineMessage(error)}`)
      })
      const ring = new LogRing(options.logLines)
      try {
        // Attach before start so the first lines (and a start-up failure's reason) are not lost.
        const output = (await container.attach({
          stream: true,
          stdout: true,
          stderr: true,
        })) as NodeJS.ReadableStream
        req.signal.throwIfAborted()
        await container.start()
        const port_ = publishedPort(await container.inspect(), port)
        if (!port_) throw new Error(`the engine published no 127.0.0.1 port for ${port}/tcp`)
        const base = new URL(`http://127.0.0.1:${port_}`)
        return containerHandle(
          docker,
          { id: container.id, name, base, image: reference, program, ...keyOf(input) },
          output,
          ring,
        )
      } catch (error) {
        await removeContainer(docker, container.id)
        const last = ring.last()
        throw new Error(
          `cannot start the ${req.slot} container (${program} from ${reference}): ${engineMessage(error)}${last ? ` (last log line: ${last})` : ''}`,
        )
      }
    },

    recover: (slot, isHealthy) =>
      recoverOwned({
        options,
        scope,
        slot,
        list: (filters) =>
          docker.listContainers({ all: true, filters }).catch((error) => {
            throw engineError(error)
          }),
        labelsOf: (summary) => summary.Labels ?? {},
        running: (summary) => summary.State === 'running',
        adopt: (summary) => adopt(docker, summary, options.logLines),
        remove: (summary) => removeContainer(docker, summary.Id),
        isHealthy,
      }),
  }
}

async function adopt(
  docker: Docker,
  summary: Docker.ContainerInfo,
  logLines?: number,
): Promise<UpstreamHandle | undefined> {
  const container = docker.getContainer(summary.Id)
  const inspect = await container.inspect().catch(() => undefined)
  const port = Number(summary.Labels?.[LABELS.port])
  const host = inspect && publishedPort(inspect, port)
  if (!inspect || !host) return undefined
  const ring = new LogRing(logLines)
  const output = (await container
    .logs({ follow: true, stdout: true, stderr: true, tail: 200 })
    .catch(() => undefined)) as NodeJS.ReadableStream | undefined
  const name = (summary.Names?.[0] ?? summary.Id).replace(/^\//, '')
  const program = inspect.Config?.Entrypoint
  return containerHandle(
    docker,
    {
      id: summary.Id,
      name,
      base: new URL(`http://127.0.0.1:${host}`),
      image: summary.Labels?.[LABELS.imageRef] ?? summary.Image,
      program: Array.isArray(program) ? (program[0] ?? 'upstream') : (program ?? 'upstream'),
      ...keyOf({ apiKey: envValue(inspect.Config?.Env, summary.Labels?.[LABELS.keyEnv]) }),
    },
    output,
    ring,
  )
}

const keyOf = (o: { apiKey?: string | undefined }) => (o.apiKey ? { apiKey: o.apiKey } : {})

function localImageMissing(name: string, entry: ImageEntry): SvcError {
  return new SvcError(
    'backend.unavailable',
    `image "${name}" (${entry.repository}:${entry.tag}, ${entry.digest.slice(0, 19)}…) is not on this machine; it is built locally, not pulled: build it as described in images.toml, then run "svc manifest pin ${name}"`,
  )
}

function engineError(error: unknown): SvcError {
  return new SvcError('upstream.unavailable', `the container engine did not answer: ${engineMessage(error)}`)
}
