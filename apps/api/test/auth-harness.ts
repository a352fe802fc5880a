/**
 * Test parts for the auth tests: the real server (`startSvc`: the Hono app and the raw inference
 * path, wired from env exactly as in production) on 127.0.0.1 port 0 with auth on, and an HTTP client
 * that connects from a chosen local address (Linux routes all of 127/8 to lo), so a test can be an
 * untrusted peer such as 127.0.0.2.
 */

import { mkdtemp, rm } from 'node:fs/promises'
import { Agent, request } from 'node:http'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { type CreatedToken, createTokenStore, type Scope, type TokenStore } from '@svc/auth'
import { readErrorBody } from '@svc/core'
import { createLogger } from '@svc/core/node'
import { afterAll, beforeAll } from 'vitest'
import { readServeEnv } from '../src/env'
import { startSvc } from '../src/server'
import { writePlaceholderWeights } from './placeholder-weights'

/** Cheap argon2id for tokens minted by tests (verification reads the cost from the hash). */
export const FAST_HASH = { memoryCost: 256, timeCost: 1, parallelism: 1 }

/**
 * A token store over `<configDir>/tokens.toml` as the CLI opens it (no watch, every change written at
 * once), with cheap hashing. Close it when done.
 */
export function testTokenStore(configDir: string): TokenStore {
  return createTokenStore({ configDir, watch: false, flushIntervalMs: 0, hashParams: FAST_HASH })
}

/** What `svc token create` takes: label, scope, limits, models. */
export type TokenRequest = Parameters<TokenStore['create']>[0]

/**
 * Mints tokens into `<configDir>/tokens.toml` as `svc token create` does (a store of its own, closed
 * again; cheap hashing), for a server that starts afterwards or watches the file. Resolves with the
 * tokens in the order asked, secrets included; rejects as `create` does on a bad request.
 */
export async function mintTokens(
  configDir: string,
  requests: readonly TokenRequest[],
): Promise<CreatedToken[]> {
  const store = testTokenStore(configDir)
  try {
    const made: CreatedToken[] = []
    for (const request of requests) made.push(await store.create(request))
    return made
  } finally {
    await store.close()
  }
}

/** One token, as `mintTokens` mints it. */
export async function mintToken(configDir: string, request: TokenRequest): Promise<CreatedToken> {
  const [made] = await mintTokens(configDir, [request])
  return made!
}

export interface Reply {
  status: number
  headers: Record<string, string | string[] | undefined>
  text: string
  /** `error.code` of a JSON error body, if any. */
  code: string | undefined
}

export interface SendOptions {
  method?: string
  path: string
  headers?: Record<string, string>
  body?: string
  /** Local address to connect from. Default 127.0.0.1. */
  from?: string
}

const agents = new Map<string, Agent>()

/** One HTTP request over a keep-alive connection from `from`; never throws for an HTTP status. */
export function send(baseUrl: string, options: SendOptions): Promise<Reply> {
  const from = options.from ?? '127.0.0.1'
  let agent = agents.get(from)
  if (!agent) {
    agent = new Agent({ keepAlive: true, localAddress: from })
    agents.set(from, agent)
  }
  const url = new URL(options.path, baseUrl)
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: url.hostname,
        port: url.port,
        path: options.path,
        method: options.method ?? 'GET',
        headers: {
          ...(options.body !== undefined ? { 'content-type': 'application/json' } : {}),
          ...options.headers,
        },
        agent,
        localAddress: from,
      },
      (res) => {
        let text = ''
        res.setEncoding('utf8')
        res.on('data', (d: string) => {
          text += d
        })
        res.on('end', () => {
          // svc's error body in any surface's shape (core's one reader)
          const code = readErrorBody(text, '').code ?? undefined
          resolve({ status: res.statusCode ?? 0, headers: res.headers, text, code })
        })
      },
    )
    req.on('error', reject)
    req.end(options.body)
  })
}

export function closeAgents(): void {
  for (const agent of agents.values()) agent.destroy()
  agents.clear()
}

/** Whether a reply got past authentication (whatever the route then said). */
export function passedAuth(reply: Reply): boolean {
  return ![401, 403, 429].includes(reply.status) && !reply.code?.startsWith('auth.')
}

export interface AuthServer extends AsyncDisposable {
  url: string
  /** Every route of the Hono app, as `[method, path]` (middleware excluded). */
  routes: [string, string][]
  configDir: string
  stateDir: string
  /** Every log line the server wrote. */
  logs: string[]
  /** Mints a token straight into tokens.toml (cheap hash), as `svc token create` does offline. */
  mint(scope: Scope, label?: string): Promise<CreatedToken>
  /** Revokes in tokens.toml, as another process would. */
  revoke(id: string): Promise<boolean>
  stop(): Promise<void>
}

/**
 * Starts svc in-process with auth on; `env` adds or overrides variables (SVC_PROXY_SECRET, …).
 * `before` runs once the directories are chosen and before svc starts (to write config files).
 */
export async function startAuthServer(
  env: Record<string, string> = {},
  before?: (dirs: { configDir: string; stateDir: string }) => Promise<void>,
): Promise<AuthServer> {
  const root = await mkdtemp(join(tmpdir(), 'svc-auth-'))
  const configDir = join(root, 'config')
  const stateDir = join(root, 'state')
  await before?.({ configDir, stateDir })
  const rawEnv = {
    ...process.env,
    SVC_HOST: '127.0.0.1',
    SVC_PORT: '0',
    SVC_AUTH_ENABLED: '1',
    SVC_CONFIG_DIR: configDir,
    SVC_STATE_DIR: stateDir,
    SVC_LOG_LEVEL: 'debug',
    ...env,
  }
  const cli = testTokenStore(configDir)
  const logs: string[] = []
  const svc = await startSvc({
    env: readServeEnv(rawEnv),
    logger: createLogger({ level: 'debug', write: (line) => logs.push(line) }),
  })
  let stopped: Promise<void> | undefined
  const stop = () => {
    stopped ??= svc.stop()
    return stopped
  }
  const routes = svc.app.routes
    .filter((r) => r.method !== 'ALL')
    .map((r): [string, string] => [r.method, r.path])
  return {
    url: svc.url,
    routes,
    configDir,
    stateDir,
    logs,
    mint: (scope, label = scope) => cli.create({ label, scope }),
    revoke: (id) => cli.revoke(id),
    stop,
    async [Symbol.asyncDispose]() {
      await stop()
      closeAgents()
      await rm(root, { recursive: true, force: true })
    },
  }
}

/**
 * `startAuthServer` for the enclosing `describe`: started in a `beforeAll` (registered now, so it runs
 * before the suite's own), disposed in an `afterAll`. The returned server reads through to the
 * running one; touching it before it started (its start failed) throws.
 */
export function useAuthServer(
  env: Record<string, string> = {},
  before?: (dirs: { configDir: string; stateDir: string }) => Promise<void>,
): AuthServer {
  let server: AuthServer | undefined
  beforeAll(async () => {
    server = await startAuthServer(env, before)
  })
  afterAll(async () => {
    await server?.[Symbol.asyncDispose]()
  })
  const current = (): AuthServer => {
    if (!server) throw new Error('the server of this suite is not running (its start failed)')
    return server
  }
  return {
    get url() {
      return current().url
    },
    get routes() {
      return current().routes
    },
    get configDir() {
      return current().configDir
    },
    get stateDir() {
      return current().stateDir
    },
    get logs() {
      return current().logs
    },
    mint: (scope, label) => current().mint(scope, label),
    revoke: (id) => current().revoke(id),
    stop: () => current().stop(),
    [Symbol.asyncDispose]: () => current()[Symbol.asyncDispose](),
  }
}

/**
 * Loads `slot` of `server` with a placeholder weights file (`writePlaceholderWeights`: for providers
 * that never read it) and waits for ready; throws with the reply unless it is 200.
 */
export async function loadPlaceholder(
  server: AuthServer,
  slot: string,
  headers: Record<string, string> = {},
): Promise<void> {
  const weights = await writePlaceholderWeights(server.stateDir)
  const load = await send(server.url, {
    method: 'POST',
    path: `/api/slots/${slot}/load?wait=true`,
    headers,
    body: JSON.stringify({ model: weights }),
  })
  if (load.status !== 200) throw new Error(`load of ${slot} answered ${load.status}: ${load.text}`)
}
