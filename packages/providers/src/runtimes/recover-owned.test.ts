import type { UpstreamExit, UpstreamHandle } from '@svc/core'
import { describe, expect, it } from 'vitest'
import type { ImageManifest } from '../manifest/manifest'
import { LABELS } from './container-spec'
import { recoverOwned } from './recover-owned'

/** The manifest pins `llama` at `reg/llama@sha256:new`; any other entry is gone. */
const manifest: ImageManifest = {
  file: 'images.toml',
  entries: {},
  entry: () => {
    throw new Error('unused')
  },
  reference: (name) => {
    if (name === 'llama') return 'reg/llama@sha256:new'
    throw new Error(`no entry ${name}`)
  },
}

interface Found {
  id: string
  labels: Record<string, string>
  running: boolean
  /** Whether it answers its health probe once adopted; undefined: it cannot be adopted at all. */
  healthy?: boolean
}

const ME = { instance: 'i-me', home: 'box:/var/lib/svc' }
const found = (id: string, labels: Record<string, string>, extra: Partial<Found> = {}): Found => ({
  id,
  running: true,
  healthy: true,
  ...extra,
  labels: {
    [LABELS.instance]: ME.instance,
    [LABELS.image]: 'llama',
    [LABELS.imageRef]: 'reg/llama@sha256:new',
    [LABELS.model]: `model-of-${id}`,
    ...labels,
  },
})

/** Runs `recoverOwned` over `items`; what it did to each, and the filters it listed with. */
async function recover(items: Found[], othersLive: readonly number[] = []) {
  const did: Record<string, string> = {}
  let filters: string[] = []
  const adopted = await recoverOwned<Found>({
    options: { manifest, ...ME, othersLive: async () => othersLive },
    scope: { 'svc.managed': 'true' },
    slot: 'primary',
    list: async (f) => {
      filters = f.label
      return items
    },
    labelsOf: (f) => f.labels,
    running: (f) => f.running,
    adopt: async (f) => {
      if (f.healthy === undefined) return undefined
      const handle: UpstreamHandle & { healthy: boolean } = {
        healthy: f.healthy,
        base: new URL('http://127.0.0.1:1'),
        exited: new Promise<UpstreamExit>(() => {}),
        describe: () => ({ id: f.id }),
        logs: () => [],
        stop: async () => {
          did[f.id] = 'stopped'
        },
      }
      return handle
    },
    remove: async (f) => {
      did[f.id] = 'removed'
    },
    isHealthy: async (h) => (h as unknown as { healthy: boolean }).healthy,
  })
  if (adopted) did[String(adopted.handle.describe().id)] = `adopted ${adopted.modelId}`
  return { did, filters }
}

describe("what the container and swarm runtimes' recover keep, remove and leave alone", () => {
  it('lists by the runtime labels and the slot', async () => {
    expect((await recover([])).filters).toEqual(['svc.managed=true', `${LABELS.slot}=primary`])
  })

  it.each<[string, Found[], Record<string, string>]>([
    [
      'adopts its healthy running upstream of the pinned image',
      [found('a', {})],
      { a: 'adopted model-of-a' },
    ],
    [
      "never touches another instance's",
      [found('x', { [LABELS.instance]: 'i-other' }), found('a', {})],
      { a: 'adopted model-of-a' },
    ],
    [
      'removes what an older instance id of the same home left',
      [found('o', { [LABELS.instance]: 'i-old', [LABELS.home]: ME.home })],
      { o: 'removed' },
    ],
    [
      'removes an outdated image and one whose entry is gone',
      [found('a', { [LABELS.imageRef]: 'reg/llama@sha256:old' }), found('b', { [LABELS.image]: 'gone' })],
      { a: 'removed', b: 'removed' },
    ],
    ['removes one that does not run', [found('a', {}, { running: false })], { a: 'removed' }],
    ['removes one it cannot reach', [found('a', {}, { healthy: undefined })], { a: 'removed' }],
    ['stops one that does not answer its probe', [found('a', {}, { healthy: false })], { a: 'stopped' }],
    [
      'adopts one and removes a second',
      [found('a', {}), found('b', {})],
      { a: 'adopted model-of-a', b: 'removed' },
    ],
  ])('%s', async (_name, items, expected) => {
    expect((await recover(items)).did).toEqual(expected)
  })

  it('touches nothing while another svc runs on the same state dir', async () => {
    expect(await recover([found('a', {}), found('o', { [LABELS.instance]: 'i-old' })], [4242])).toEqual({
      did: {},
      filters: [],
    })
  })
})
