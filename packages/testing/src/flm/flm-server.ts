/**
 * A stand-in for `flm serve` (FastFlowLM on the AMD NPU), which cannot run here: a real HTTP server
 * with FLM's routes and quirks (docs/providers.md, "npu"). Routing is an exact match on method and full target
 * including the query string (`/v1/models?x=1` is a 404 `{"error":"Not Found"}`); there is no
 * `/health` (clients poll `/api/tags`); NPU jobs run one at a time with at most `qLen` waiting, beyond
 * which requests get 503.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import { FLM_STANDIN_TAGS, flmTagKind, rectifyTag } from './flm-catalog'
import {
  chatCompletions,
  completions,
  embeddings,
  type FlmState,
  type Reply,
  transcriptions,
} from './flm-handlers'

export type { FlmState } from './flm-handlers'

export interface FlmStandInOptions {
  /** Default 127.0.0.1 (FLM's own default). */
  host?: string
  /** Default 0 (a free port). */
  port?: number
  /** The LLM tag `flm serve <tag>` preloads (rectified: `qwen3` → `qwen3:0.6b`). */
  tag?: string
  /** `--asr 1`: speech recognition (whisper-v3:turbo) loaded. */
  asr?: boolean
  /** `--embed 1`: embeddings (embed-gemma:300m) loaded. */
  embed?: boolean
  /** `--ctx-len`: rounded up to a power of two, at least 512. Default 4096. */
  ctxLen?: number
  /** `--q-len`: requests that may wait for the NPU. Default 10. */
  qLen?: number
  /** How long each NPU job takes (ms). Default 0. */
  jobDelayMs?: number
}

export interface FlmStandIn extends AsyncDisposable {
  url: string
  port: number
  state: FlmState
  stop(): Promise<void>
}

export const FLM_STANDIN_VERSION = '0.9.24-standin'

/** Builds the stand-in's server (not listening). Throws for an unknown preload tag, as flm exits. */
export function createFlmServer(options: FlmStandInOptions = {}): { server: Server; state: FlmState } {
  const preload = options.tag === undefined ? null : (rectifyTag(options.tag) ?? null)
  if (options.tag !== undefined && (!preload || flmTagKind(preload) !== 'llm')) {
    throw new Error(`Invalid model tag: ${options.tag}`)
  }
  const state: FlmState = {
    loaded: preload,
    switches: [],
    requests: [],
    asr: options.asr ?? false,
    embed: options.embed ?? false,
    ctxLen: Math.max(512, 2 ** Math.ceil(Math.log2(options.ctxLen ?? 4096))),
  }
  const qLen = options.qLen ?? 10
  let queue: Promise<unknown> = Promise.resolve()
  let waiting = 0

  const server = createServer(async (req, res) => {
    const target = `${req.method} ${req.url}`
    try {
      switch (target) {
        case 'GET /api/tags':
          return send(res, 200, { models: FLM_STANDIN_TAGS.map(describe) })
        case 'GET /api/ps':
          return send(res, 200, { models: state.loaded ? [describe(state.loaded)] : [] })
        case 'GET /api/version':
        case 'GET /v1/version':
          return send(res, 200, { version: FLM_STANDIN_VERSION })
        case 'GET /v1/models':
          return send(res, 200, {
            object: 'list',
            data: FLM_STANDIN_TAGS.filter((t) => flmTagKind(t) === 'llm').map((id) => ({
              id,
              object: 'model',
              created: 0,
              owned_by: 'FastFlowLM',
            })),
          })
        case 'POST /v1/chat/completions':
        case 'POST /v1/completions':
        case 'POST /v1/embeddings':
        case 'POST /v1/audio/transcriptions':
          break
        default:
          return send(res, 404, { error: 'Not Found' })
      }
      const raw = await readBody(req)
      if (waiting >= qLen) {
        return send(res, 503, {
          error: `NPU is in use and request queue is full (limit: ${qLen}). Try again later.`,
        })
      }
      waiting++
      const job = queue.then(async () => {
        waiting--
        await new Promise((r) => setTimeout(r, options.jobDelayMs ?? 0))
        return handle(state, req, raw)
      })
      queue = job.catch(() => undefined)
      const reply = await job
      if ('stream' in reply) return reply.stream(res)
      return send(res, reply.status, reply.json)
    } catch (error) {
      return send(res, 500, { error: (error as Error).message })
    }
  })
  return { server, state }
}

async function handle(state: FlmState, req: IncomingMessage, raw: Buffer): Promise<Reply> {
  const path = req.url ?? ''
  if (path === '/v1/audio/transcriptions') {
    state.requests.push({ path })
    return transcriptions(state, req.headers['content-type'] ?? '', raw)
  }
  let body: unknown
  try {
    body = JSON.parse(raw.toString('utf8'))
  } catch {
    return { status: 400, json: { error: 'Invalid JSON' } }
  }
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    return { status: 200, json: { error: 'Expected a JSON object' } }
  }
  const b = body as Record<string, unknown>
  state.requests.push({ path, ...(typeof b.model === 'string' ? { model: b.model } : {}) })
  if (path === '/v1/chat/completions') return chatCompletions(state, b)
  if (path === '/v1/completions') return completions(state, b)
  return embeddings(state, b)
}

function describe(tag: string) {
  return { name: tag, model: tag, size: 0, details: { family: tag.split(':')[0], format: 'flm' } }
}

function send(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body))
}

function readBody(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = []
    req.on('data', (c: Buffer) => chunks.push(c))
    req.on('end', () => resolve(Buffer.concat(chunks)))
    req.on('error', reject)
  })
}

/** Starts the stand-in in this process on `host:port` (default 127.0.0.1, a free port). */
export async function startFlmStandIn(options: FlmStandInOptions = {}): Promise<FlmStandIn> {
  const { server, state } = createFlmServer(options)
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(options.port ?? 0, options.host ?? '127.0.0.1', resolve)
  })
  const address = server.address()
  const port = typeof address === 'object' && address ? address.port : 0
  const stop = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections()
      server.close(() => resolve())
    })
  return {
    url: `http://${options.host ?? '127.0.0.1'}:${port}`,
    port,
    state,
    stop,
    [Symbol.asyncDispose]: stop,
  }
}
