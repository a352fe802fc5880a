/**
 * The ComfyUI stand-in: a real HTTP + WebSocket server on 127.0.0.1 that speaks ComfyUI's protocol
 * (docs/providers.md, "image", and this folder's README), validates every graph against ComfyUI's real node schemas and
 * "executes" accepted prompts into real PNGs. ComfyUI itself cannot run here (no GPU, no Python index).
 */
import { mkdir, mkdtemp, rm } from 'node:fs/promises'
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createExecutor, type RunSettings } from './executor'
import { HttpError, type ReceivedPrompt, type Reply, ROUTES, type RouteContext, send } from './http-routes'
import { createNodeSchemas, type ModelFiles } from './node-schemas'
import { createPromptQueue } from './prompt-queue'
import { PyException } from './py-values'
import type { ReceivedUpload } from './route-types'
import { createWsHub } from './ws-hub'

export interface ComfyStandInOptions extends ModelFiles, Partial<RunSettings> {
  /** Where `output/`, `input/` and `temp/` live. Default: a temp directory, removed by `close()`. */
  baseDir?: string
}

export interface ReceivedRequest {
  method: string
  /** Path and query, as sent (`/api/interrupt`, `/view?filename=…`). */
  url: string
  body: string
}

export interface ComfyStandIn extends AsyncDisposable {
  /** `http://127.0.0.1:<port>` */
  url: string
  port: number
  /** Every `POST /prompt`, accepted or refused, in arrival order. */
  prompts: ReceivedPrompt[]
  /** Every stored upload (`POST /upload/image`, `/upload/mask`), in arrival order. */
  uploads: ReceivedUpload[]
  /** ComfyUI's input directory (uploads land in `<inputDir>/<subfolder>/`). */
  inputDir: string
  /** Every HTTP request (and `/ws` upgrade), in arrival order. */
  requests: ReceivedRequest[]
  /** ComfyUI's output directory (SaveImage files land in `<outputDir>/<subfolder>/`). */
  outputDir: string
  /** Changes `delayMs`, `stepDelayMs`, `failExecution` for prompts that start from now on. */
  configure(settings: Partial<RunSettings>): void
  /** Interrupts the running prompt, closes sockets and the server, removes a temp `baseDir`. Idempotent. */
  close(): Promise<void>
}

const DEFAULT_FILES = {
  diffusionModels: ['flux1-schnell.safetensors'],
  textEncoders: ['clip_l.safetensors', 't5xxl_fp16.safetensors', 't5xxl_fp8_e4m3fn.safetensors'],
  vaes: ['ae.safetensors'],
}

function readBody(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = []
    req.on('data', (c: Buffer) => chunks.push(c))
    req.on('end', () => resolve(Buffer.concat(chunks)))
    req.on('error', reject)
  })
}

const LOOPBACK = new Set(['127.0.0.1', 'localhost', '::1', '[::1]'])

/** server.py `create_origin_only_middleware`: a browser on another origin may not drive a loopback ComfyUI. */
function crossOrigin(req: IncomingMessage): boolean {
  const origin = req.headers.origin
  const host = req.headers.host
  if (!origin || !host) return false
  if (!LOOPBACK.has(host.replace(/:\d+$/, ''))) return false
  try {
    return new URL(origin).host !== host
  } catch {
    return true
  }
}

/**
 * Starts a stand-in on 127.0.0.1, port 0. `checkpoints` is what its `models/checkpoints` holds (the
 * `ckpt_name` combo); a graph naming another file is refused with `value_not_in_list`, as ComfyUI does.
 */
export async function startComfyStandIn(options: ComfyStandInOptions): Promise<ComfyStandIn> {
  const baseDir = options.baseDir ?? (await mkdtemp(join(tmpdir(), 'svc-comfyui-')))
  const dirs = { output: join(baseDir, 'output'), input: join(baseDir, 'input'), temp: join(baseDir, 'temp') }
  await Promise.all(Object.values(dirs).map((d) => mkdir(d, { recursive: true })))
  const files = {
    checkpoints: options.checkpoints,
    diffusionModels: options.diffusionModels ?? DEFAULT_FILES.diffusionModels,
    textEncoders: options.textEncoders ?? DEFAULT_FILES.textEncoders,
    vaes: options.vaes ?? DEFAULT_FILES.vaes,
  }
  const schemas = createNodeSchemas(files)
  const settings: RunSettings = {
    delayMs: options.delayMs ?? 0,
    stepDelayMs: options.stepDelayMs ?? 0,
    failExecution: options.failExecution ?? false,
  }
  const queueInfo = () => ({ exec_info: { queue_remaining: queue.remaining() } })
  const hub = createWsHub({ queueInfo, currentNodeFor: (sid) => executor.currentNodeFor(sid) })
  const queue = createPromptQueue(() => hub.send('status', { status: queueInfo() }, null))
  const executor = createExecutor({ schemas, queue, hub, dirs, settings: () => ({ ...settings }) })
  const prompts: ReceivedPrompt[] = []
  const uploads: ReceivedUpload[] = []
  const requests: ReceivedRequest[] = []
  const ctx: RouteContext = {
    schemas,
    queue,
    executor,
    dirs,
    modelFolders: {
      checkpoints: [...files.checkpoints].sort(),
      diffusion_models: [...files.diffusionModels].sort(),
      text_encoders: [...files.textEncoders].sort(),
      vae: [...files.vaes].sort(),
    },
    prompts,
    uploads,
    counter: { next: 0 },
    queueInfo,
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const raw = await readBody(req)
    const body = raw.toString('utf8')
    requests.push({ method: req.method ?? 'GET', url: req.url ?? '/', body })
    const url = new URL(req.url ?? '/', 'http://stand-in')
    const path = url.pathname.startsWith('/api/') ? url.pathname.slice(4) : url.pathname
    let reply: Reply
    if (crossOrigin(req)) reply = { status: 403 }
    else {
      const matches = ROUTES.filter(([, re]) => re.test(path))
      const method = req.method === 'HEAD' ? 'GET' : req.method
      const route = matches.find(([m]) => m === method)
      if (!route) {
        reply =
          matches.length === 0
            ? { status: 404, text: '404: Not Found' }
            : {
                status: 405,
                text: '405: Method Not Allowed',
                headers: { allow: [...new Set(matches.map(([m]) => m))].join(',') },
              }
      } else {
        try {
          reply = await route[2](req, url, body, ctx, raw)
        } catch (error) {
          if (error instanceof HttpError) reply = { status: error.status, text: error.text }
          else if (error instanceof PyException)
            reply = { status: 500, text: '500 Internal Server Error\n\nServer got itself in trouble' }
          else throw error
        }
      }
    }
    send(res, reply)
  }

  const server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      if (!res.headersSent) res.writeHead(500, { 'content-type': 'text/plain; charset=utf-8' })
      res.end(`500 Internal Server Error\n\n${(error as Error).message}`)
    })
  })
  server.on('upgrade', (req, socket, head) => {
    requests.push({ method: 'GET', url: req.url ?? '/', body: '' })
    const path = new URL(req.url ?? '/', 'http://stand-in').pathname
    if (path === '/ws' || path === '/api/ws') hub.upgrade(req, socket, head)
    else socket.destroy()
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const port = (server.address() as AddressInfo).port

  let closing: Promise<void> | undefined
  const close = () => {
    closing ??= (async () => {
      await executor.close()
      await hub.close()
      server.closeAllConnections()
      await new Promise<void>((resolve) => server.close(() => resolve()))
      if (!options.baseDir) await rm(baseDir, { recursive: true, force: true })
    })()
    return closing
  }

  return {
    url: `http://127.0.0.1:${port}`,
    port,
    prompts,
    uploads,
    inputDir: dirs.input,
    requests,
    outputDir: dirs.output,
    configure(change) {
      Object.assign(settings, Object.fromEntries(Object.entries(change).filter(([, v]) => v !== undefined)))
    },
    close,
    [Symbol.asyncDispose]: close,
  }
}
