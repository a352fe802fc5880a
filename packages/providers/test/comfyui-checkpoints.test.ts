import { readFile } from 'node:fs/promises'
import { join, relative } from 'node:path'
import type { ModelEntry } from '@svc/core'
import { parseImageManifest } from '@svc/providers/manifest'
import { modelDest } from '@svc/providers/models'
import { REPO_ROOT } from '@svc/testing'
import { describe, expect, it } from 'vitest'
import { volumeHostDir } from '../src/runtimes/volumes'

// A pulled checkpoint is only usable if it lands inside the host folder that the ComfyUI image
// mounts at ComfyUI's `models/`, under `checkpoints/`: the store and the manifest must agree.
describe('ComfyUI checkpoints and the image that loads them', () => {
  it('are pulled into the folder every ComfyUI image in the manifest mounts as models/checkpoints', async () => {
    const text = await readFile(join(REPO_ROOT, 'manifests/images.toml'), 'utf8')
    const parsed = parseImageManifest(text)
    if (!parsed.ok) throw new Error(parsed.error)
    const images = Object.values(parsed.manifest.entries).filter((e) => e.provider === 'image')
    expect(images.length).toBeGreaterThan(0)
    const entry = { id: 'sdxl-turbo', provider: 'image', format: 'checkpoint' } as ModelEntry
    const stateDir = '/var/lib/svc'
    const dest = modelDest(stateDir, entry)
    for (const image of images) {
      const mount = (image.volumes ?? [])
        .map((v) => v.split(/:(.*)/s))
        .find(([, container]) => container?.endsWith('/models'))
      expect(mount, `${image.repository} mounts no models folder`).toBeDefined()
      const [dir = '', container = ''] = mount ?? []
      const inContainer = join(container, relative(volumeHostDir(stateDir, dir), dest))
      expect(inContainer).toBe(join(container, 'checkpoints', 'sdxl-turbo', 'sdxl-turbo.checkpoint'))
    }
  })
})
