import { afterEach, describe, expect, it } from 'vitest'
import WebSocket from 'ws'
import { type ComfyStandIn, DEFAULT_FAILURE_MESSAGE, readPngInfo, startComfyStandIn } from '../src/index'
import { type ComfyGraph, sd15Prompt } from './sd15-prompt'

interface Image {
  filename: string
  subfolder: string
  type: string
}
interface History {
  prompt: [number, string, ComfyGraph, Record<string, unknown>, string[]]
  outputs: Record<string, { images: Image[] }>
  status: { status_str: string; completed: boolean; messages: [string, Record<string, unknown>][] }
  meta: Record<string, unknown>
}

const open: ComfyStandIn[] = []
afterEach(async () => {
  await Promise.all(open.splice(0).map((c) => c.close()))
})

async function standIn(
  options: Partial<Parameters<typeof startComfyStandIn>[0]> = {},
): Promise<ComfyStandIn> {
  const c = await startComfyStandIn({ checkpoints: ['v1-5-pruned-emaonly.safetensors'], ...options })
  open.push(c)
  return c
}

async function queue(c: ComfyStandIn, graph: ComfyGraph, clientId?: string): Promise<string> {
  const res = await fetch(`${c.url}/prompt`, {
    method: 'POST',
    body: JSON.stringify({ prompt: graph, client_id: clientId }),
  })
  expect(res.status).toBe(200)
  return ((await res.json()) as { prompt_id: string }).prompt_id
}

async function history(c: ComfyStandIn, id: string): Promise<History> {
  for (;;) {
    const h = (await (await fetch(`${c.url}/history/${id}`)).json()) as Record<string, History>
    if (h[id]) return h[id]
    await new Promise((r) => setTimeout(r, 10))
  }
}

async function view(c: ComfyStandIn, image: Image): Promise<Response> {
  const q = new URLSearchParams({ filename: image.filename, subfolder: image.subfolder, type: image.type })
  return fetch(`${c.url}/view?${q}`)
}

/** A `/ws` client that records every JSON frame. */
async function listen(c: ComfyStandIn, clientId?: string) {
  const ws = new WebSocket(`${c.url.replace('http', 'ws')}/ws${clientId ? `?clientId=${clientId}` : ''}`)
  const frames: { type: string; data: Record<string, unknown> }[] = []
  ws.on('message', (raw) => frames.push(JSON.parse(raw.toString())))
  await new Promise((r) => ws.once('open', r))
  await until(() => frames.length > 0)
  return { ws, frames, types: () => frames.map((f) => f.type) }
}

async function until(ok: () => boolean): Promise<void> {
  while (!ok()) await new Promise((r) => setTimeout(r, 5))
}

describe('the ComfyUI stand-in executes prompts', () => {
  it('renders the batch as PNGs of the latent size, named as ComfyUI names them', async () => {
    const c = await standIn()
    const id = await queue(c, sd15Prompt({ batch: 2, size: 512 }))
    const h = await history(c, id)
    expect(h.status).toMatchObject({ status_str: 'success', completed: true })
    expect(h.status.messages.map(([e]) => e)).toEqual([
      'execution_start',
      'execution_cached',
      'execution_success',
    ])
    expect(h.outputs['9']!.images).toEqual([
      { filename: 'sd15_00001_.png', subfolder: 'openai', type: 'output' },
      { filename: 'sd15_00002_.png', subfolder: 'openai', type: 'output' },
    ])
    expect(h.meta).toEqual({ '9': { node_id: '9', display_node: '9', parent_node: null, real_node_id: '9' } })
    expect(h.prompt[1]).toBe(id)
    expect(h.prompt[4]).toEqual(['9'])
    for (const image of h.outputs['9']!.images) {
      const res = await view(c, image)
      expect(res.headers.get('content-type')).toBe('image/png')
      const png = readPngInfo(new Uint8Array(await res.arrayBuffer()))
      expect(png).toMatchObject({ width: 512, height: 512, bitDepth: 8, colorType: 2 })
      expect(JSON.parse(png.text.prompt!)['3'].inputs.seed).toBe(42)
    }
    // the counter continues in the same folder
    const next = await history(c, await queue(c, sd15Prompt({ seed: 7 })))
    expect(next.outputs['9']!.images[0]!.filename).toBe('sd15_00003_.png')
  })

  it('floors a size that is not a multiple of 8, as the latent does', async () => {
    const c = await standIn()
    const h = await history(c, await queue(c, sd15Prompt({ size: 70 })))
    const png = readPngInfo(new Uint8Array(await (await view(c, h.outputs['9']!.images[0]!)).arrayBuffer()))
    expect([png.width, png.height]).toEqual([64, 64])
  })

  it('draws the same pixels for the same seed and different ones for another seed', async () => {
    const c = await standIn()
    const bytes = async (seed: number, prefix: string) => {
      const h = await history(c, await queue(c, sd15Prompt({ seed, prefix })))
      return Buffer.from(await (await view(c, h.outputs['9']!.images[0]!)).arrayBuffer())
    }
    const idat = (b: Buffer) => b.subarray(b.indexOf('IDAT'))
    const a = await bytes(1, 'a')
    const b = await bytes(1, 'b')
    const d = await bytes(2, 'd')
    expect(idat(a).equals(idat(b))).toBe(true)
    expect(idat(a).equals(idat(d))).toBe(false)
  })

  it('sends the events of a prompt to its client, in ComfyUI order, and "executing null" last', async () => {
    const c = await standIn()
    const client = await listen(c, 'client-1')
    const other = await listen(c)
    expect(client.frames[0]).toEqual({
      type: 'status',
      data: { status: { exec_info: { queue_remaining: 0 } }, sid: 'client-1' },
    })
    expect(other.frames[0]!.data.sid).toMatch(/^[0-9a-f]{32}$/)
    const id = await queue(c, sd15Prompt({ steps: 2 }), 'client-1')
    await until(() => client.frames.some((f) => f.type === 'executing' && f.data.node === null))
    const events = client.types().filter((t) => t !== 'progress_state')
    expect(events).toEqual([
      'status',
      'status', // queued
      'status', // taken
      'execution_start',
      'execution_cached',
      ...['4', '5', '6', '7'].flatMap(() => ['executing']),
      'executing',
      'progress',
      'progress',
      'executing',
      'executing',
      'executed',
      'execution_success',
      'status',
      'executing',
    ])
    const executed = client.frames.find((f) => f.type === 'executed')!
    expect(executed.data).toEqual({
      node: '9',
      display_node: '9',
      output: { images: [{ filename: 'sd15_00001_.png', subfolder: 'openai', type: 'output' }] },
      prompt_id: id,
    })
    expect(client.frames.filter((f) => f.type === 'progress').map((f) => f.data)).toEqual([
      { value: 1, max: 2, prompt_id: id, node: '3' },
      { value: 2, max: 2, prompt_id: id, node: '3' },
    ])
    // another socket sees only the queue status broadcasts
    expect(new Set(other.types())).toEqual(new Set(['status']))
    client.ws.close()
    other.ws.close()
  })

  it('broadcasts progress of a prompt posted without client_id, and nothing else about it', async () => {
    const c = await standIn()
    const socket = await listen(c)
    const id = await queue(c, sd15Prompt({ steps: 2 }))
    await history(c, id)
    await until(() => socket.types().filter((t) => t === 'status').length >= 4)
    expect(new Set(socket.types())).toEqual(new Set(['status', 'progress']))
    socket.ws.close()
  })

  it('answers the feature_flags handshake', async () => {
    const c = await standIn()
    const client = await listen(c, 'ff')
    client.ws.send(JSON.stringify({ type: 'feature_flags', data: { supports_preview_metadata: true } }))
    await until(() => client.types().includes('feature_flags'))
    expect(client.frames.at(-1)).toEqual({
      type: 'feature_flags',
      data: { supports_preview_metadata: true, max_upload_size: 104857600 },
    })
    client.ws.close()
  })

  it('re-uses cached outputs for an identical graph: same file names, nothing re-runs', async () => {
    const c = await standIn()
    const first = await history(c, await queue(c, sd15Prompt()))
    const again = await history(c, await queue(c, sd15Prompt()))
    expect(again.outputs).toEqual(first.outputs)
    const cached = again.status.messages.find(([e]) => e === 'execution_cached')![1]
    expect((cached.nodes as string[]).sort()).toEqual(['3', '4', '5', '6', '7', '8', '9'])
  })

  it('stops the running prompt on POST /interrupt and records the interruption', async () => {
    const c = await standIn({ stepDelayMs: 40 })
    const socket = await listen(c)
    const id = await queue(c, sd15Prompt({ steps: 50 }))
    await until(() => socket.types().includes('progress'))
    // an interrupt aimed at another prompt is a no-op
    await fetch(`${c.url}/interrupt`, { method: 'POST', body: JSON.stringify({ prompt_id: 'someone-else' }) })
    await fetch(`${c.url}/api/interrupt`, { method: 'POST', body: JSON.stringify({ prompt_id: id }) })
    const h = await history(c, id)
    expect(h.status).toMatchObject({ status_str: 'error', completed: false })
    const [event, data] = h.status.messages.at(-1)!
    expect(event).toBe('execution_interrupted')
    expect(data).toMatchObject({ prompt_id: id, node_id: '3', node_type: 'KSampler' })
    expect((data.executed as string[]).sort()).toEqual(['4', '5', '6', '7']) // a set in ComfyUI: no order
    expect(h.outputs).toEqual({})
    // interrupted is broadcast even though the prompt had no client_id
    await until(() => socket.types().includes('execution_interrupted'))
    socket.ws.close()
  })

  it('fails execution when told to, with an execution_error naming the sampler', async () => {
    const c = await standIn({ failExecution: 'HIP out of memory' })
    const h = await history(c, await queue(c, sd15Prompt()))
    expect(h.status.status_str).toBe('error')
    const [event, data] = h.status.messages.at(-1)!
    expect(event).toBe('execution_error')
    expect(data).toMatchObject({
      node_id: '3',
      node_type: 'KSampler',
      exception_message: 'HIP out of memory',
      exception_type: 'RuntimeError',
    })
    expect((data.executed as string[]).sort()).toEqual(['4', '5', '6', '7'])
    expect(Object.keys(data).sort()).toEqual(
      [
        'prompt_id',
        'node_id',
        'node_type',
        'executed',
        'exception_message',
        'exception_type',
        'traceback',
        'current_inputs',
        'current_outputs',
        'timestamp',
      ].sort(),
    )
    c.configure({ failExecution: true })
    const again = await history(c, await queue(c, sd15Prompt({ seed: 9 })))
    expect(again.status.messages.at(-1)![1].exception_message).toBe(DEFAULT_FAILURE_MESSAGE)
    c.configure({ failExecution: false })
    expect((await history(c, await queue(c, sd15Prompt({ seed: 10 })))).status.status_str).toBe('success')
  })

  it('runs prompts in queue order; POST /queue deletes a pending one', async () => {
    const c = await standIn({ delayMs: 150 })
    const a = await queue(c, sd15Prompt({ seed: 1 }))
    const b = await queue(c, sd15Prompt({ seed: 2 }))
    const d = await queue(c, sd15Prompt({ seed: 3 }))
    const q = (await (await fetch(`${c.url}/queue`)).json()) as Record<string, [number, string][]>
    expect(q.queue_running!.map((i) => i[1])).toEqual([a])
    expect(q.queue_pending!.map((i) => i[1]).sort()).toEqual([b, d].sort())
    expect(await (await fetch(`${c.url}/prompt`)).json()).toEqual({ exec_info: { queue_remaining: 3 } })
    const del = await fetch(`${c.url}/queue`, { method: 'POST', body: JSON.stringify({ delete: [b] }) })
    expect(del.status).toBe(200)
    await history(c, d)
    const all = (await (await fetch(`${c.url}/history`)).json()) as Record<string, History>
    expect(Object.keys(all)).toEqual([a, d])
  })

  it('guards /view like ComfyUI: 404 unknown, 400 bad name or type, 403 outside the folder', async () => {
    const c = await standIn()
    const status = async (q: string) => (await fetch(`${c.url}/view?${q}`)).status
    expect(await status('')).toBe(404)
    expect(await status('filename=nope.png')).toBe(404)
    expect(await status('filename=../x.png')).toBe(400)
    expect(await status('filename=%2Fetc%2Fpasswd')).toBe(400)
    expect(await status('filename=x.png&type=elsewhere')).toBe(400)
    expect(await status('filename=x.png&subfolder=..%2F..')).toBe(403)
  })

  it('serves object_info, system_stats and the /api mirror; 404 and 405 as aiohttp', async () => {
    const c = await standIn()
    const info = (await (await fetch(`${c.url}/api/object_info`)).json()) as Record<string, unknown>
    expect(Object.keys(info)).toContain('KSampler')
    expect(info._source).toBeUndefined()
    expect(await (await fetch(`${c.url}/object_info/Nope`)).json()).toEqual({})
    const stats = (await (await fetch(`${c.url}/system_stats`)).json()) as Record<
      string,
      Record<string, unknown>
    >
    expect(stats.system).toMatchObject({ comfyui_version: '0.3.64', os: 'posix' })
    expect(Array.isArray(stats.devices)).toBe(true)
    const missing = await fetch(`${c.url}/nope`)
    expect([missing.status, await missing.text()]).toEqual([404, '404: Not Found'])
    expect((await fetch(`${c.url}/interrupt`)).status).toBe(405)
    expect(c.requests.map((r) => r.url)).toContain('/api/object_info')
  })
})
