/**
 * The dispatcher in one process, for its fast unit tests: a real `node:http` front server calling
 * `handle()`, a real SlotManager whose slots "run" on an in-process HTTP upstream (port 0), and a
 * hosted upstream on another. Real sockets and real HTTP both ways; only the slot driver is a
 * stand-in (it starts nothing: the upstream already listens). Not exported from the package; kept out of `src` (test code is no product).
 */
import { once } from 'node:events'
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import {
  createEventBus,
  defaultSlotConfig,
  type Endpoint,
  type ModelEntry,
  SlotManager,
  type SvcEvents,
  systemClock,
  type UpstreamExit,
} from '@svc/core'
import { createDispatcher, type Dispatcher, type DispatcherOptions, type SlotRoute } from '../src/dispatcher'
import type { HostedUpstream } from '../src/upstreams'

/** One request as an upstream saw it. */
export interface Seen {
  path: string
  headers: IncomingMessage['headers']
  body: string
  /** Settles when the upstream's side of the request closed (the response ended or was cut). */
  closed: Promise<void>
}

/** How the upstream answers a path; the default echoes `{path, model}` as JSON. */
export type UpstreamRoute = (req: IncomingMessage, res: ServerResponse, body: string) => void

export interface DispatchHarness extends AsyncDisposable {
  /** The front server: POST here as a client would. */
  url: string
  /** Requests the slot upstream received, in order. */
  seen: Seen[]
  /** Requests the hosted upstream received. */
  hostedSeen: Seen[]
  /** Replaces how the slot upstream answers `path`. */
  route(path: string, fn: UpstreamRoute): void
  manager: SlotManager
  dispatcher: Dispatcher
}

export interface HarnessOptions extends Partial<DispatcherOptions> {
  /** Models (by id) each slot holds once started; slots not named stay empty. Default primary: qwen. */
  loads?: Record<string, string>
  /** Refs svc knows without any slot holding them (→ `model.not_loaded`). */
  known?: string[]
}

const listen = async (server: Server): Promise<string> => {
  server.listen(0, '127.0.0.1')
  await once(server, 'listening')
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`
}

function recordingServer(seen: Seen[], routes: Map<string, UpstreamRoute>): Server {
  return createServer((req, res) => {
    const chunks: Buffer[] = []
    const closed = once(res, 'close').then(() => undefined)
    req.on('data', (c: Buffer) => chunks.push(c))
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8')
      seen.push({ path: req.url ?? '', headers: req.headers, body, closed })
      const path = (req.url ?? '').split('?')[0]!
      const route = routes.get(path)
      if (route) return route(req, res, body)
      const model = body ? (JSON.parse(body) as { model?: unknown }).model : undefined
      res.writeHead(200, { 'content-type': 'application/json' })
      res.end(JSON.stringify({ path, model }))
    })
  })
}

/** Starts the three servers and loads the slots; dispose to stop everything. */
export async function startDispatchHarness(options: HarnessOptions = {}): Promise<DispatchHarness> {
  const seen: Seen[] = []
  const hostedSeen: Seen[] = []
  const routes = new Map<string, UpstreamRoute>()
  const upstream = recordingServer(seen, routes)
  const hosted = recordingServer(hostedSeen, new Map())
  const upstreamUrl = await listen(upstream)
  const hostedUrl = await listen(hosted)

  const known = new Set(options.known ?? [])
  const entry = (id: string): ModelEntry => ({ id, format: 'gguf', provider: 'llm', source: 'local' })
  const manager = new SlotManager({
    configs: ['primary', 'embed', 'img'].map((name) => defaultSlotConfig(name)!),
    bus: createEventBus<SvcEvents>(),
    clock: systemClock,
    resolveModel: async (id) => entry(id),
    createDriver: () => ({
      warmupTimeoutMs: 1_000,
      needsPull: async () => false,
      pull: async (model) => model,
      start: async () => ({
        base: new URL(upstreamUrl),
        exited: new Promise<UpstreamExit>(() => {}),
        stop: async () => {},
        describe: () => ({}),
        logs: () => [],
      }),
      probe: async () => true,
    }),
  })
  for (const [slot, id] of Object.entries(options.loads ?? { primary: 'qwen' })) await manager.load(slot, id)

  const paths: Record<string, string> = {
    chat: '/v1/chat/completions',
    completions: '/v1/completions',
    embeddings: '/v1/embeddings',
    speech: '/v1/audio/speech',
    transcriptions: '/v1/audio/transcriptions',
  }
  const route: SlotRoute = {
    endpoints: Object.keys(paths) as Endpoint[],
    requestPath: (endpoint) => paths[endpoint]!,
  }
  const hostedUpstream: HostedUpstream = {
    name: 'cloud',
    baseUrl: new URL(`${hostedUrl}/v1/`),
    prefix: 'cloud/',
    apiKey: 'sk-test',
    apiKeyEnv: 'CLOUD_KEY',
    timeoutMs: 2_000,
  }
  const dispatcher = createDispatcher({
    slots: manager,
    routeFor: () => route,
    upstreams: () => [hostedUpstream],
    isKnownModel: async (id) => known.has(id),
    queueTimeoutMs: 500,
    upstreamTimeoutMs: 500,
    ...options,
  })
  const front = createServer((req, res) => {
    if (dispatcher.handles((req.url ?? '').split('?')[0]!)) void dispatcher.handle(req, res, 'req-1')
    else res.writeHead(404).end()
  })
  const url = await listen(front)

  return {
    url,
    seen,
    hostedSeen,
    route: (path, fn) => routes.set(path, fn),
    manager,
    dispatcher,
    async [Symbol.asyncDispose]() {
      dispatcher.close()
      for (const server of [front, upstream, hosted]) {
        server.closeAllConnections()
        server.close()
      }
      await manager.stopAll()
    },
  }
}

/** POSTs JSON (or the raw string given) to the front server. */
export function post(
  h: Pick<DispatchHarness, 'url'>,
  path: string,
  body: unknown,
  init: RequestInit = {},
): Promise<Response> {
  return fetch(`${h.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: typeof body === 'string' ? body : JSON.stringify(body),
    ...init,
  })
}
