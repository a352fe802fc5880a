/**
 * The Ollama API (docs/ollama.md) on Node's raw request/response, beside svc's own `/api/*`: its
 * paths are named one by one (`OLLAMA_PATHS`), every other path stays svc's. Auth is the same
 * authenticator as everywhere (the scope classes are in `@svc/auth`'s `ollama-routes.ts`); every
 * answer, refusals included, is in Ollama's shape (`{"error": "…"}` with svc's status).
 */
import type { IncomingMessage, ServerResponse } from 'node:http'
import type { Principal } from '@svc/auth'
import { parseJsonRequest, SvcError } from '@svc/core'
import { type Caller, readBody, refuseUnallowedModel, requestPath } from '@svc/dispatcher'
import type * as v from 'valibot'
import type { Authenticate } from '../middleware/auth'
import { allowedModelsFor, allowedModelsOf, mayList, noteAllowedModels } from '../middleware/token-models'
import type { SlotSystem } from '../slots/slot-system'
import type { QuotaGate } from '../usage/quota-gate'
import { isAdmin } from '../views/redact'
import { chat, embed, embeddings, generate, type InferenceContext } from './inference'
import { type ModelListDeps, OLLAMA_API_VERSION, ps, show, tags } from './models'
import { svcModelName } from './names'
import { writeJson, writeOllamaError } from './ndjson'
import { type PullDeps, pull } from './pull'
import {
  OllamaChatSchema,
  OllamaEmbeddingsSchema,
  OllamaEmbedSchema,
  OllamaGenerateSchema,
  OllamaModelRequestSchema,
} from './schemas'

/** The Ollama paths and the method each answers; `/api/blobs/<digest>` is matched by prefix. */
export const OLLAMA_PATHS: Readonly<Record<string, string>> = {
  '/api/version': 'GET',
  '/api/tags': 'GET',
  '/api/ps': 'GET',
  '/api/show': 'POST',
  '/api/chat': 'POST',
  '/api/generate': 'POST',
  '/api/embed': 'POST',
  '/api/embeddings': 'POST',
  '/api/pull': 'POST',
  '/api/create': 'POST',
  '/api/copy': 'POST',
  '/api/push': 'POST',
  '/api/delete': 'DELETE',
}

/** Ollama routes svc does not implement: its store is managed by svc's own API and CLI. */
const NOT_IMPLEMENTED = new Set(['/api/create', '/api/copy', '/api/push', '/api/delete', '/api/blobs'])

/** The Ollama paths that run a model: they count against a quota, as `/v1` does. */
const INFERENCE = new Set(['/api/chat', '/api/generate', '/api/embed', '/api/embeddings'])

export function isOllamaPath(path: string): boolean {
  return path in OLLAMA_PATHS || path.startsWith('/api/blobs/')
}

export interface OllamaDeps extends ModelListDeps, PullDeps {
  call: Caller
  authenticate: Authenticate
  /** The quota check (`usage/quota-gate.ts`); absent: nobody is limited (auth off, or no ledger). */
  admit?: QuotaGate['admit']
  /** Largest JSON body (bytes), as on `/v1`. */
  maxJsonBytes?: number
  /** How long a load request waits for the model (SVC_QUEUE_TIMEOUT, ms). */
  queueTimeoutMs?: number
}

export type OllamaHandler = (req: IncomingMessage, res: ServerResponse, requestId: string) => Promise<void>

export function createOllamaHandler(deps: OllamaDeps): OllamaHandler {
  const maxJson = deps.maxJsonBytes ?? 32 * 1024 * 1024

  async function read<S extends v.GenericSchema>(req: IncomingMessage, schema: S): Promise<v.InferOutput<S>> {
    const raw = await readBody(req, maxJson)
    // Ollama ignores Content-Type (its own curl examples send form-encoded JSON), so svc does too.
    const body = parseJsonRequest(raw.toString('utf8'), undefined, schema, { emptyIsObject: true })
    // A token limited to models names only those (middleware/token-models.ts), whatever the route
    // does with the name (a load or unload request included, which reaches no dispatcher).
    const allowed = allowedModelsOf(req)
    const { model, name } = (body ?? {}) as { model?: unknown; name?: unknown }
    const named = model || name
    if (allowed && typeof named === 'string')
      refuseUnallowedModel(allowed, svcModelName(named), undefined, deps.slots.manager)
    return body
  }

  return async function handleOllama(req, res, requestId) {
    const started = performance.now()
    const path = requestPath(req.url)
    const method = req.method ?? 'GET'
    const controller = new AbortController()
    res.on('close', () => {
      if (!res.writableFinished) controller.abort()
    })
    try {
      const outcome = await deps.authenticate({
        method,
        path,
        header: (name) => {
          const value = req.headers[name]
          return Array.isArray(value) ? value.join(', ') : value
        },
        peer: () => req.socket.remoteAddress,
      })
      if (!outcome.ok) throw outcome.error
      noteAllowedModels(req, outcome.principal)
      const route = path.startsWith('/api/blobs/') ? '/api/blobs' : path
      if (NOT_IMPLEMENTED.has(route))
        throw new SvcError(
          'route.not_implemented',
          `${route} is not implemented by svc: models are managed with svc's own API (/api/models) and CLI (svc models)`,
        )
      const expected = OLLAMA_PATHS[route]!
      if (method !== expected && !(expected === 'GET' && method === 'HEAD')) {
        res.setHeader('allow', expected)
        throw new SvcError('method.not_allowed', `use ${expected} for ${path}`)
      }
      // A token's quota holds on this surface as on /v1 (the same gate), its 429 in Ollama's shape.
      if (
        INFERENCE.has(route) &&
        deps.admit &&
        !deps.admit(outcome.principal, req, res, requestId, writeOllamaError)
      )
        return
      const ctx: InferenceContext = {
        call: deps.call,
        req,
        res,
        requestId,
        signal: controller.signal,
        route,
        started,
        lifecycle: deps,
        manages: isAdmin(outcome.principal),
      }
      switch (route) {
        case '/api/version':
          return writeJson(res, 200, { version: OLLAMA_API_VERSION }, requestId)
        case '/api/tags':
          return writeJson(
            res,
            200,
            listable(await tags(deps), outcome.principal, deps.slots.manager),
            requestId,
          )
        case '/api/ps':
          return writeJson(
            res,
            200,
            listable(await ps(deps), outcome.principal, deps.slots.manager),
            requestId,
          )
        case '/api/show':
          return writeJson(
            res,
            200,
            await show(deps, modelName(await read(req, OllamaModelRequestSchema))),
            requestId,
          )
        case '/api/chat':
          return await chat(ctx, await read(req, OllamaChatSchema))
        case '/api/generate':
          return await generate(ctx, await read(req, OllamaGenerateSchema))
        case '/api/embed':
          return await embed(ctx, await read(req, OllamaEmbedSchema))
        case '/api/embeddings':
          return await embeddings(ctx, await read(req, OllamaEmbeddingsSchema))
        case '/api/pull': {
          const body = await read(req, OllamaModelRequestSchema)
          const name = modelName(body)
          const stream = body.stream !== false
          return await pull(deps, { name, stream, res, requestId, signal: controller.signal })
        }
      }
    } catch (error) {
      if (controller.signal.aborted && !res.headersSent) {
        res.destroy()
        return
      }
      writeOllamaError(res, error, requestId)
    }
  }
}

function modelName(body: { model?: string | undefined; name?: string | undefined }): string {
  const name = body.model || body.name
  if (!name) throw new SvcError('request.invalid', 'model is required', { param: 'model' })
  return name
}

/** `/api/tags` as `principal` may see it: a token limited to models sees only those. */
function listable<T extends { models: { name: string }[] }>(
  list: T,
  principal: Principal,
  slots: SlotSystem['manager'],
): T {
  if (!allowedModelsFor(principal)) return list
  return { ...list, models: list.models.filter((m) => mayList(principal, svcModelName(m.name), slots)) }
}
