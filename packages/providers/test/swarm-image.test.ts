/**
 * The swarm runtime runs the image the model needs, as the container runtime does: a tts slot loading
 * Chatterbox (voice cloning) must not get the backend's default tts image (Kokoro). Checked where the
 * choice shows before any engine call: a locally built image is refused by name (swarm nodes cannot
 * pull it), so the refusal says which image the runtime picked.
 */
import Docker from 'dockerode'
import { describe, expect, it } from 'vitest'
import { createImageManifest } from '../src/manifest/manifest'
import { createSwarmRuntime } from '../src/runtimes/swarm'
import { createTtsProvider } from '../src/tts/tts-provider'
import { ttsModel } from './tts-models'

const manifest = createImageManifest(
  {
    'kokoro-cpu': {
      provider: 'tts',
      backend: 'cpu',
      repository: 'localhost/kokoro',
      tag: 'v1',
      digest: `sha256:${'a'.repeat(64)}`,
    },
    'chatterbox-cpu': {
      provider: 'tts',
      backend: 'cpu',
      repository: 'localhost/chatterbox',
      tag: 'v1',
      digest: `sha256:${'b'.repeat(64)}`,
      source: 'local',
    },
  },
  'images.toml',
)

describe('the swarm runtime picks the image by model', () => {
  it('asks the provider for the model’s image (Chatterbox), not the backend’s default', async () => {
    const runtime = createSwarmRuntime({
      manifest,
      instance: '0123456789abcdef',
      // No engine behind it: the choice must show before svc talks to one.
      docker: new Docker({ socketPath: '/nonexistent/docker.sock' }),
    })
    const request = {
      slot: 'tts',
      provider: createTtsProvider({ node: process.execPath }),
      model: ttsModel('chatterbox', { extraCapabilities: ['voice_cloning'] }),
      backend: 'cpu' as const,
      args: [],
      signal: new AbortController().signal,
    }
    await expect(runtime.pull?.(request, () => {})).rejects.toThrow(
      /image "chatterbox-cpu" is built locally: swarm nodes cannot pull it/,
    )
  })
})
