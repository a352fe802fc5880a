/**
 * Slot config files written or changed while svc runs are read; a bad edit is
 * reported (file, field) in the slot's status and on the event stream and leaves the slot as it was.
 */
import { mkdir, rename, rm, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { type ComfyStandIn, startComfyStandIn } from '@svc/testing'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type AuthServer, send, startAuthServer } from './auth-harness'

const SDXL = 'sdxl-turbo/sd_xl_turbo_1.0_fp16.safetensors'

interface SlotReply {
  name: string
  state: string
  runtime: string | null
  provider: string
  configError: { file: string; field: string | null; message: string } | null
  config: { url: string | null; enabled: boolean }
}

describe('slot config files edited while svc runs', () => {
  let server: AuthServer
  let comfy: ComfyStandIn
  let slotsDir: string

  beforeAll(async () => {
    comfy = await startComfyStandIn({ checkpoints: [SDXL] })
    server = await startAuthServer({ SVC_AUTH_ENABLED: '0' })
    slotsDir = join(server.configDir, 'slots')
    await mkdir(slotsDir, { recursive: true })
  }, 60_000)
  afterAll(async () => {
    await server?.[Symbol.asyncDispose]()
    await comfy?.close()
  })

  const slot = async (name: string) => {
    const reply = await send(server.url, { path: `/api/slots/${name}` })
    return { status: reply.status, body: JSON.parse(reply.text) as SlotReply }
  }
  const until = async (name: string, check: (s: SlotReply) => boolean, ms = 5_000): Promise<SlotReply> => {
    const deadline = Date.now() + ms
    let last = await slot(name)
    while (last.status !== 200 || !check(last.body)) {
      if (Date.now() > deadline) throw new Error(`slot ${name} never matched: ${JSON.stringify(last)}`)
      await new Promise((r) => setTimeout(r, 50))
      last = await slot(name)
    }
    return last.body
  }
  /** Writes like an editor that saves atomically: a temp file renamed over the old one. */
  const save = async (file: string, text: string) => {
    const temp = join(slotsDir, `.${file}.swp`)
    await writeFile(temp, text)
    await rename(temp, join(slotsDir, file))
  }

  it('serves a remote img slot configured after start (no local hardware check)', async () => {
    await writeFile(join(slotsDir, 'img.toml'), `runtime = "remote"\nurl = "${comfy.url}"\n`)
    await until('img', (s) => s.runtime === 'remote' && s.config.url === comfy.url)
    const load = await send(server.url, {
      method: 'POST',
      path: '/api/slots/img/load?wait=true',
      body: JSON.stringify({ model: 'sdxl-turbo' }),
    })
    expect(load.status, load.text).toBe(200)
    const image = await send(server.url, {
      method: 'POST',
      path: '/v1/images/generations',
      body: JSON.stringify({ model: 'sdxl-turbo', prompt: 'a cat', size: '64x64', steps: 1 }),
    })
    expect(image.status, image.text).toBe(200)
  }, 30_000)

  it('adds a custom slot whose file appears', async () => {
    await save('extra.toml', 'provider = "llm"\nrole = "embed"\n')
    const extra = await until('extra', (s) => s.provider === 'llm')
    expect(extra.state).toBe('offline')
    expect(extra.configError).toBeNull()
  })

  it('reports a bad edit with file and field, on the slot and as an event, and keeps the slot as it was', async () => {
    const events = await fetch(`${server.url}/api/events`)
    const reader = events.body!.getReader()
    let text = ''
    while (!text.includes('event: snapshot')) text += new TextDecoder().decode((await reader.read()).value)

    await save('img.toml', `runtime = "remote"\nurl = "${comfy.url}"\nbackend = "quantum"\n`)
    const broken = await until('img', (s) => s.configError !== null)
    expect(broken.configError).toMatchObject({
      file: expect.stringMatching(/slots\/img\.toml$/),
      field: 'backend',
    })
    expect(['ready', 'idle']).toContain(broken.state)
    expect(broken.runtime).toBe('remote')
    expect(broken.config.url).toBe(comfy.url)
    while (!text.includes('event: slot.config')) text += new TextDecoder().decode((await reader.read()).value)
    await reader.cancel()
    const data = JSON.parse(/event: slot\.config\ndata: (.*)/.exec(text)![1]!)
    expect(data).toMatchObject({
      slot: 'img',
      ok: false,
      file: expect.stringMatching(/slots\/img\.toml$/),
      error: { field: 'backend' },
    })

    // Requests still reach the running upstream.
    const image = await send(server.url, {
      method: 'POST',
      path: '/v1/images/generations',
      body: JSON.stringify({ model: 'sdxl-turbo', prompt: 'a dog', size: '64x64', steps: 1 }),
    })
    expect(image.status).toBe(200)

    await save('img.toml', `runtime = "remote"\nurl = "${comfy.url}"\nrestart = "no"\n`)
    const fixed = await until('img', (s) => s.configError === null)
    expect(['ready', 'idle']).toContain(fixed.state)
  })

  it('names the line of a syntax error', async () => {
    await save('extra.toml', 'provider = "llm"\nrole = \n')
    const broken = await until('extra', (s) => s.configError !== null)
    expect(broken.configError?.field).toBeNull()
    expect(broken.configError?.message).toMatch(/line 2/)
    expect(broken.provider).toBe('llm')
  })

  it('gives a built-in slot its defaults back when its file is removed', async () => {
    await save('embed.toml', 'enabled = true\n')
    await until('embed', (s) => s.config.enabled)
    await rm(join(slotsDir, 'embed.toml'))
    await until('embed', (s) => !s.config.enabled)
  })
})
