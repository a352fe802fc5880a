import { join } from 'node:path'

/**
 * The host directory behind an image's `volumes = ["<dir>:<container path>"]` entry:
 * `<state>/volumes/<dir>`. One definition, because two parties must agree on it: the container
 * runtime mounts it, and the model store drops pulled ComfyUI checkpoints into it.
 */
export function volumeHostDir(stateDir: string, dir: string): string {
  return join(stateDir, 'volumes', dir)
}
