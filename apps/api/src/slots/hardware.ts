import {
  createContainerRuntime,
  createSwarmRuntime,
  defaultImagesManifestPath,
  detectHardware,
  type HardwareFacts,
  type ImageManifest,
  loadImageManifest,
  loadInstanceId,
  type Runtime,
} from '@svc/providers'
import type { Logger } from '../logger'

export interface HardwareWiring {
  manifest?: ImageManifest
  detect: () => Promise<HardwareFacts>
  container?: Runtime
  /** Docker Swarm services through the same engine; the picker offers it only on a swarm manager. */
  swarm?: Runtime
}

/**
 * The image manifest (`manifests/images.toml`, or SVC_IMAGES_MANIFEST), the container runtime over
 * the Docker Engine API (DOCKER_HOST; podman's socket works the same), and hardware detection.
 * A manifest that does not parse disables containers with an error in the log, never the server.
 */
export async function wireHardware(options: {
  stateDir: string
  env: Record<string, string | undefined>
  logger: Logger
}): Promise<HardwareWiring> {
  const path = defaultImagesManifestPath(options.env)
  const manifest = await loadImageManifest(path).catch((error: Error) => {
    options.logger.error('image manifest ignored: containers are off', { file: path, error: error.message })
    return undefined
  })
  const instance = await loadInstanceId(options.stateDir)
  return {
    ...(manifest
      ? {
          manifest,
          container: createContainerRuntime({ manifest, instance, stateDir: options.stateDir }),
          swarm: createSwarmRuntime({ manifest, instance }),
        }
      : {}),
    detect: () => detectHardware({ env: options.env, ...(manifest ? { manifest } : {}) }),
  }
}
