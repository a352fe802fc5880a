import type { Logger } from '@svc/core/node'
import {
  createContainerRuntime,
  createSwarmRuntime,
  detectHardware,
  type HardwareFacts,
  type Runtime,
} from '@svc/providers'
import { instanceHome, type LiveRun, loadInstanceId, registerLiveRun } from '@svc/providers/internals'
import { defaultImagesManifestPath, type ImageManifest, loadImageManifest } from '@svc/providers/manifest'

export interface HardwareWiring {
  manifest?: ImageManifest
  detect: () => Promise<HardwareFacts>
  container?: Runtime
  /** Docker Swarm services through the same engine; the picker offers it only on a swarm manager. */
  swarm?: Runtime
  /** This process's record on the state dir (other svc processes there are left alone); released on stop. */
  live: LiveRun
}

/**
 * The image manifest (`manifests/images.toml`, or SVC_IMAGES_MANIFEST), the container runtime over
 * the Docker Engine API (DOCKER_HOST; podman's socket works the same), and hardware detection.
 * A manifest that does not parse disables containers with an error in the log, never the server.
 */
export async function wireHardware(options: {
  stateDir: string
  /** The server's environment (engine lookup: `SVC_LLAMA_SERVER`, PATH, the cache dir). */
  env: Readonly<Record<string, string | undefined>>
  /** SVC_IMAGES_MANIFEST; default `manifests/images.toml`. */
  imagesManifest?: string
  logger: Logger
}): Promise<HardwareWiring> {
  const path = options.imagesManifest ?? defaultImagesManifestPath()
  const manifest = await loadImageManifest(path).catch((error: Error) => {
    options.logger.error('image manifest ignored: containers are off', { file: path, error: error.message })
    return undefined
  })
  const instance = await loadInstanceId(options.stateDir)
  // Recorded before any recovery: two svc processes starting together on one state dir both see the
  // other, and neither removes what the other is loading.
  const live = await registerLiveRun(options.stateDir)
  if (live.problem)
    options.logger.warn('another svc on this state dir may recover what this one runs', {
      error: live.problem,
    })
  const owner = { instance, home: instanceHome(options.stateDir), othersLive: live.others }
  return {
    live,
    ...(manifest
      ? {
          manifest,
          container: createContainerRuntime({ manifest, ...owner, stateDir: options.stateDir }),
          swarm: createSwarmRuntime({ manifest, ...owner }),
        }
      : {}),
    detect: () => detectHardware({ env: options.env, ...(manifest ? { manifest } : {}) }),
  }
}
