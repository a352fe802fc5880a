/**
 * ComfyUI's HTTP routes (server.py @ a125cd84), each also under `/api`. Bodies
 * are Python's `json.dumps` output; an unparsable JSON body is aiohttp's generic 500, an unknown path
 * its `404: Not Found`, a known path with the wrong method `405: Method Not Allowed`.
 */
import { randomUUID } from 'node:crypto'
import { readdirSync } from 'node:fs'
import type { IncomingMessage, ServerResponse } from 'node:http'
import { freemem, totalmem } from 'node:os'
import { inputExists } from './input-files'
import { queueTuple } from './prompt-queue'
import {
  isDict,
  type PyDict,
  PyFloat,
  type PyValue,
  parsePyJson,
  pyFloat,
  pyStr,
  toJsValue,
  toPyJson,
} from './py-values'
import { HttpError, type ReceivedPrompt, type Reply, type RouteContext } from './route-types'
import { uploadImage, uploadMask } from './upload-routes'
import { validatePrompt } from './validate-prompt'
import { view } from './view-route'

export { HttpError, type ReceivedPrompt, type Reply, type RouteContext } from './route-types'

type Handler = (
  req: IncomingMessage,
  url: URL,
  body: string,
  ctx: RouteContext,
  /** The body's bytes (uploads are binary). */
  raw: Buffer,
) => Promise<Reply> | Reply

const ok: Reply = { status: 200 }
const json = (value: unknown, status = 200): Reply => ({ status, json: value })

function parseBody(body: string): PyValue {
  try {
    return parsePyJson(body)
  } catch {
    // aiohttp: request.json() raises → unhandled → the generic 500 page
    throw new HttpError(500, '500 Internal Server Error\n\nServer got itself in trouble')
  }
}

function toJsGraph(v: PyValue): ReceivedPrompt['graph'] {
  return (isDict(v) ? toJsValue(v) : {}) as ReceivedPrompt['graph']
}

function postPrompt(_req: IncomingMessage, _url: URL, body: string, ctx: RouteContext): Reply {
  const data = parseBody(body)
  if (!isDict(data)) throw new HttpError(500, '500 Internal Server Error\n\nServer got itself in trouble')
  let number: number | PyFloat
  if ('number' in data) number = pyFloat(data.number!)
  else {
    number = ctx.counter.next
    if ('front' in data && data.front) number = -number
    ctx.counter.next++
  }
  const record: ReceivedPrompt = {
    raw: body,
    graph: toJsGraph(data.prompt ?? null),
    clientId: data.client_id,
    status: 400,
    response: undefined,
  }
  ctx.prompts.push(record)
  if (!('prompt' in data)) {
    const error = {
      type: 'no_prompt',
      message: 'No prompt provided',
      details: 'No prompt provided',
      extra_info: {},
    }
    record.response = { error, node_errors: {} }
    return json(record.response, 400)
  }
  const promptId = 'prompt_id' in data ? pyStr(data.prompt_id!) : randomUUID()
  const result = validatePrompt(data.prompt!, ctx.schemas, {
    partialTargets: data.partial_execution_targets,
    inputExists: (name) => inputExists(name, ctx.dirs),
  })
  const extraData: PyDict = isDict(data.extra_data) ? data.extra_data : {}
  if ('client_id' in data) extraData.client_id = data.client_id!
  if (!result.ok) {
    record.response = { error: result.error, node_errors: result.nodeErrors }
    return json(record.response, 400)
  }
  ctx.queue.put({ number, promptId, prompt: data.prompt as PyDict, extraData, outputs: result.outputs })
  ctx.executor.wake()
  record.status = 200
  record.promptId = promptId
  record.response = { prompt_id: promptId, number, node_errors: result.nodeErrors }
  return json(record.response)
}

function getHistory(_req: IncomingMessage, url: URL, _body: string, ctx: RouteContext): Reply {
  const id = /\/history\/(.+)$/.exec(url.pathname)?.[1]
  if (id !== undefined) return json(ctx.queue.history(decodeURIComponent(id)))
  const int = (name: string) => {
    const v = url.searchParams.get(name)
    if (v === null) return undefined
    if (!/^\s*[+-]?\d+\s*$/.test(v))
      throw new HttpError(500, '500 Internal Server Error\n\nServer got itself in trouble')
    return Number(v)
  }
  return json(ctx.queue.history(undefined, int('max_items'), int('offset')))
}

/** ComfyUI's `{clear?: bool, delete?: [prompt ids]}` body (POST /history, /queue), applied by `on`. */
function clearOrDelete(body: string, on: { clear(): void; delete(promptId: PyValue): void }): Reply {
  const data = parseBody(body)
  if (isDict(data)) {
    if (data.clear) on.clear()
    if (Array.isArray(data.delete)) for (const id of data.delete) on.delete(id)
  }
  return ok
}

function postHistory(_req: IncomingMessage, _url: URL, body: string, ctx: RouteContext): Reply {
  return clearOrDelete(body, {
    clear: () => ctx.queue.clearHistory(),
    delete: (id) => ctx.queue.deleteHistory(id),
  })
}

function postQueue(_req: IncomingMessage, _url: URL, body: string, ctx: RouteContext): Reply {
  return clearOrDelete(body, { clear: () => ctx.queue.wipe(), delete: (id) => ctx.queue.deletePending(id) })
}

function postInterrupt(_req: IncomingMessage, _url: URL, body: string, ctx: RouteContext): Reply {
  let data: PyValue = {}
  try {
    data = parsePyJson(body)
  } catch {
    // an empty or non-JSON body is a global interrupt
  }
  const promptId = isDict(data) ? data.prompt_id : undefined
  if (promptId) {
    if (ctx.queue.running()?.promptId === promptId) ctx.executor.interrupt()
  } else ctx.executor.interrupt()
  return ok
}

const IMAGE_FILE = /\.(png|jpe?g|webp|gif|bmp|tiff?)$/i

/**
 * A class's `object_info`; LoadImage / LoadImageMask list the input folder as it is now (top-level
 * files, sorted; LoadImage only those whose name says image/*), recomputed on every call as ComfyUI does.
 */
function infoOf(name: string, info: PyDict, ctx: RouteContext): PyDict {
  if (name !== 'LoadImage' && name !== 'LoadImageMask') return info
  const files = readdirSync(ctx.dirs.input, { withFileTypes: true })
    .filter((e) => e.isFile() && (name === 'LoadImageMask' || IMAGE_FILE.test(e.name)))
    .map((e) => e.name)
    .sort()
  const input = info.input as PyDict
  const required = input.required as PyDict
  const image = required.image as PyValue[]
  return { ...info, input: { ...input, required: { ...required, image: [files, image[1]!] } } }
}

function objectInfo(_req: IncomingMessage, url: URL, _body: string, ctx: RouteContext): Reply {
  const cls = /\/object_info\/(.+)$/.exec(url.pathname)?.[1]
  if (cls !== undefined) {
    const schema = ctx.schemas.get(decodeURIComponent(cls))
    return json(schema ? { [schema.name]: infoOf(schema.name, schema.info, ctx) } : {})
  }
  return json(Object.fromEntries([...ctx.schemas].map(([name, s]) => [name, infoOf(name, s.info, ctx)])))
}

function systemStats(): Reply {
  return json({
    system: {
      os: 'posix',
      ram_total: totalmem(),
      ram_free: freemem(),
      comfyui_version: '0.3.64',
      required_frontend_version: '1.27.10',
      installed_templates_version: '0.1.95',
      required_templates_version: '0.1.95',
      python_version: '3.12.3 (comfyui stand-in in Node.js)',
      pytorch_version: '2.8.0+cpu',
      embedded_python: false,
      argv: ['main.py', '--listen', '127.0.0.1', '--cpu'],
    },
    devices: [
      {
        name: 'cpu',
        type: 'cpu',
        index: null,
        vram_total: totalmem(),
        vram_free: freemem(),
        torch_vram_total: totalmem(),
        torch_vram_free: freemem(),
      },
    ],
  })
}

/** method → path pattern → handler. Patterns are matched against the path without the `/api` prefix. */
export const ROUTES: [string, RegExp, Handler][] = [
  ['POST', /^\/prompt$/, postPrompt],
  ['GET', /^\/prompt$/, (_r, _u, _b, ctx) => json(ctx.queueInfo())],
  ['GET', /^\/history$/, getHistory],
  ['GET', /^\/history\/.+$/, getHistory],
  ['POST', /^\/history$/, postHistory],
  [
    'GET',
    /^\/queue$/,
    (_r, _u, _b, ctx) => {
      const running = ctx.queue.running()
      return json({
        queue_running: running ? [queueTuple(running)] : [],
        queue_pending: ctx.queue.pending().map(queueTuple),
      })
    },
  ],
  ['POST', /^\/queue$/, postQueue],
  ['POST', /^\/interrupt$/, postInterrupt],
  ['POST', /^\/free$/, () => ok],
  ['POST', /^\/upload\/image$/, uploadImage],
  ['POST', /^\/upload\/mask$/, uploadMask],
  ['GET', /^\/view$/, view],
  ['GET', /^\/object_info$/, objectInfo],
  ['GET', /^\/object_info\/.+$/, objectInfo],
  ['GET', /^\/system_stats$/, systemStats],
  [
    'GET',
    /^\/features$/,
    () => json({ supports_preview_metadata: true, max_upload_size: new PyFloat(104857600) }),
  ],
  ['GET', /^\/embeddings$/, () => json([])],
  ['GET', /^\/models$/, (_r, _u, _b, ctx) => json(Object.keys(ctx.modelFolders))],
  [
    'GET',
    /^\/models\/[^/]+$/,
    (_r, url, _b, ctx) => {
      const files = ctx.modelFolders[decodeURIComponent(url.pathname.split('/').pop()!)]
      return files ? json([...files]) : { status: 404 }
    },
  ],
]

/** Writes a reply the way aiohttp would. */
export function send(res: ServerResponse, reply: Reply): void {
  if (reply.bytes) {
    res.writeHead(reply.status, { 'content-length': reply.bytes.length, ...reply.headers })
    res.end(reply.bytes)
    return
  }
  if (reply.json !== undefined) {
    const text = toPyJson(reply.json)
    res.writeHead(reply.status, {
      'content-type': 'application/json; charset=utf-8',
      'content-length': Buffer.byteLength(text),
      ...reply.headers,
    })
    res.end(text)
    return
  }
  const text = reply.text ?? ''
  res.writeHead(reply.status, {
    ...(reply.text === undefined ? {} : { 'content-type': 'text/plain; charset=utf-8' }),
    'content-length': Buffer.byteLength(text),
    ...reply.headers,
  })
  res.end(text)
}
