/**
 * Faults suite: `kill -9` of the API and a restart over the same state. Every upstream
 * it left — a host process (llama-server) and a container (llama-server in an image from a local
 * registry, pinned by digest, on the real Docker Engine) — is adopted when healthy or removed when
 * not, and the test counts them: by the model path on the command line of every process on this
 * machine, and by the `svc.instance` label of every container.
 */
import { randomBytes } from 'node:crypto'
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { findEngine } from '@svc/engines'
import { pinManifest } from '@svc/providers/manifest'
import {
  type ApiProcess,
  docker,
  ensureDockerEngine,
  missingPart,
  publishRootfsImage,
  removeContainersByLabel,
  startApi,
  startRegistry,
  writeSvcConfig,
  writeTinyGguf,
} from '@svc/testing'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { sendChat } from '../chat-requests'
import { loadOk, waitForSlot } from '../live'

const engine = await ensureDockerEngine()
const llama = findEngine('llama-server', process.env)
if (!llama) missingPart('llama-server', 'run ./scripts/setup.sh (svc engines build llama-server)')
const registry = 'skip' in engine || !llama ? undefined : await startRegistry()
const ready = registry !== undefined && !('skip' in registry)

/** Pids of every process on this machine whose command line mentions `text`. */
async function processesWith(text: string): Promise<number[]> {
  const pids: number[] = []
  for (const entry of await readdir('/proc')) {
    if (!/^\d+$/.test(entry)) continue
    const cmdline = await readFile(`/proc/${entry}/cmdline`, 'utf8').catch(() => '')
    if (cmdline.includes(text)) pids.push(Number(entry))
  }
  return pids.filter((pid) => pid !== process.pid)
}

/** Ids of every container, running or not, labelled for this svc installation. */
async function containersOf(instance: string): Promise<string[]> {
  const out = await docker(['ps', '-aq', '--no-trunc', '--filter', `label=svc.instance=${instance}`])
  return out.split('\n').filter(Boolean)
}

describe.skipIf(!ready)('kill -9 of the API, then a restart', () => {
  let dir: string
  let gguf: string
  let manifest: string
  let repository: string
  let api: ApiProcess | undefined
  let instance = ''

  const start = async () => {
    api = await startApi({
      configDir: join(dir, 'config'),
      stateDir: join(dir, 'state'),
      env: { SVC_IMAGES_MANIFEST: manifest },
    })
    return api
  }
  const slotFile = (extra: string) =>
    `backend = "cpu"\nrestart = "no"\nargs = ["-c", "256", "-np", "1", "--threads", "1"]\n${extra}`

  beforeAll(async () => {
    if (!registry || 'skip' in registry || !llama) return
    dir = await mkdtemp(join(tmpdir(), 'svc-faults-restart-'))
    repository = `${registry.host}/svc-test/faults-${randomBytes(3).toString('hex')}`
    await publishRootfsImage({ tag: `${repository}:v1`, binaries: [llama.path] })
    manifest = join(dir, 'images.toml')
    await writeFile(
      manifest,
      `[image.llama-cpu]\nprovider = "llm"\nbackend = "cpu"\nrepository = "${repository}"\ntag = "v1"\ndigest = ""\n`,
    )
    const pinned = await pinManifest({ file: manifest, names: ['llama-cpu'] })
    expect(pinned.results[0]?.ok, pinned.results[0]?.error).toBe(true)
    await writeSvcConfig(join(dir, 'config'), {
      slots: {
        primary: slotFile('runtime = "process"\n'),
        boxed: slotFile('provider = "llm"\nruntime = "container"\n'),
      },
    })
    await mkdir(join(dir, 'models'))
    gguf = (await writeTinyGguf(join(dir, 'models', 'tiny-chat.gguf'), { role: 'chat' })).path
  }, 240_000)

  afterAll(async () => {
    await api?.[Symbol.asyncDispose]()
    if (instance) await removeContainersByLabel(`svc.instance=${instance}`).catch(() => 0)
    for (const pid of gguf ? await processesWith(gguf) : []) process.kill(pid, 'SIGKILL')
    // The tag and the digest the runtime pulled by: every image of the test's repository.
    const images = repository ? await docker(['images', '-q', repository]).catch(() => '') : ''
    const ids = [...new Set(images.split('\n').filter(Boolean))]
    if (ids.length > 0) await docker(['rmi', '-f', ...ids]).catch(() => '')
    if (registry && !('skip' in registry)) await registry.stop()
    if (dir) await rm(dir, { recursive: true, force: true })
  })

  it('adopts the healthy process and container it left: the same one of each, and no other', async () => {
    const first = await start()
    const [primary, boxed] = await Promise.all([loadOk(first, 'primary', gguf), loadOk(first, 'boxed', gguf)])
    const pid = primary.upstream!.pid!
    const container = boxed.upstream!.container!
    instance = (await readFile(join(dir, 'state', 'instance-id'), 'utf8')).trim()
    const full = (id: string) => expect.stringMatching(new RegExp(`^${id}`))

    await first.stop('SIGKILL')
    expect(await processesWith(gguf)).toEqual([pid])
    expect(await containersOf(instance)).toEqual([full(container)])

    const second = await start()
    const [p, b] = await Promise.all([
      waitForSlot(second, 'primary', (s) => s.state === 'ready', 60_000),
      waitForSlot(second, 'boxed', (s) => s.state === 'ready', 60_000),
    ])
    expect(p.upstream?.pid).toBe(pid)
    expect(b.upstream?.container).toBe(container)
    expect(await processesWith(gguf)).toEqual([pid])
    expect(await containersOf(instance)).toEqual([full(container)])
    for (const slot of ['primary', 'boxed']) {
      const chat = await sendChat(second, { model: slot, max_tokens: 2 })
      expect(chat.status, slot).toBe(200)
    }
  }, 240_000)

  it('removes what it left but cannot adopt (a hung process, a paused container), and starts nothing', async () => {
    const before = api!
    const pid = (await waitForSlot(before, 'primary', (s) => s.state !== 'offline')).upstream!.pid!
    const [container] = await containersOf(instance)
    await before.stop('SIGKILL')
    process.kill(pid, 'SIGSTOP')
    await docker(['pause', container!])

    const after = await start()
    const deadline = Date.now() + 60_000
    while ((await processesWith(gguf)).length + (await containersOf(instance)).length > 0) {
      if (Date.now() > deadline) throw new Error(`leftovers remain:\n${after.output().slice(-3000)}`)
      await new Promise((r) => setTimeout(r, 250))
    }
    for (const slot of ['primary', 'boxed']) {
      expect((await waitForSlot(after, slot, (s) => s.state === 'offline')).upstream, slot).toBeNull()
    }
    // Still nothing a moment later: recovery did not start replacements behind our back.
    await new Promise((r) => setTimeout(r, 1_000))
    expect(await processesWith(gguf)).toEqual([])
    expect(await containersOf(instance)).toEqual([])
  }, 120_000)
})
