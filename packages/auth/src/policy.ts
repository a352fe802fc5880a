/**
 * The scope policy (docs/auth.md#scopes), as data: every request falls into one route class
 * (`classify`), and a table says which scopes may use each class (`allows`). Both are pure.
 *
 * Decisions beyond the scope table (written down here, tested in policy.test.ts):
 * - Only GET and HEAD are reads. Any other method, OPTIONS included, is treated as a mutation.
 * - Open endpoints are open for the methods they serve (GET/HEAD; POST for `/api/install/complete`
 *   and `/api/auth/login`). Another method on an open path needs credentials like any mutation, so an
 *   anonymous caller learns nothing about routes (401, not 405).
 * - `GET /v1/models/<id>` is as open as `GET /v1/models`: one entry of an open list.
 * - Every other `/v1/*` request is inference, whatever the method: it may run a model. `read-only`
 *   may not; `all` and `v1-only` may.
 * - `GET /api/images/cache/*` (results of `/v1/images/*`) is readable by every scope (its
 *   URLs are /v1 results; reading one runs no model). Other methods there are mutations.
 * - Reads of `/api/*` (slots, slot logs, models, hardware, `/api/events`) are for `admin`, `all` and
 *   `read-only`. `/api/auth/tokens` is token management for every method, reads included: `admin` only.
 * - Mutations of `/api/slots/*` and `/api/models/*` (slot mutations) and of anything else under
 *   `/api/*` are `admin` only.
 * - Paths outside `/api` and `/v1` (the dashboard's files) are open for reads: the page must load
 *   before it can ask a person for a token (opened directly on :8080 with auth on, the
 *   dashboard asks for one). The files are the public build and hold no data; every request the page
 *   then makes is checked as usual.
 * - `GET /v1/audio/voices` (the tts slot's voice list) is `/v1` like any other: inference scopes.
 * - New management routes fall into the classes above by prefix and method: `POST /api/slots`
 *   (create a custom slot), `POST|DELETE /api/models/:id/pull`, `DELETE /api/models/:id` are slot
 *   mutations (admin); `GET /api/slots/:slot/logs[?follow=1]` is an api read.
 * - A path with empty or dot segments (`//`, `/./`, `/../`) is never routed by svc; it is classed as
 *   an admin-only mutation so that no spelling of a path can fall into a more permissive class.
 *   One trailing slash is ignored.
 * - Another spelling of `/v1` or `/api` (`/V1/models`, `/API/slots`) is not a dashboard file either:
 *   svc routes none of them, and a proxy in front that folds case must not turn them into open reads.
 * - The Ollama API's paths under `/api/*` have their own classes (`ollama-routes.ts`).
 */
import { classifyOllama } from './ollama-routes'
import type { RouteClass } from './route-classes'

export { ROUTE_CLASSES, type RouteClass } from './route-classes'

export const SCOPES = ['admin', 'all', 'v1-only', 'read-only'] as const
export type Scope = (typeof SCOPES)[number]

export interface RoutePolicy {
  /** No credentials needed, even with auth on. */
  open: boolean
  /** The scopes that may use the class (ignored when `open`). */
  scopes: readonly Scope[]
}

/** The scope table. A forwarded identity from the proxy is `admin`. */
export const POLICY: Readonly<Record<RouteClass, RoutePolicy>> = {
  open: { open: true, scopes: SCOPES },
  'v1-models': { open: true, scopes: SCOPES },
  'v1-inference': { open: false, scopes: ['admin', 'all', 'v1-only'] },
  'image-cache': { open: false, scopes: ['admin', 'all', 'v1-only', 'read-only'] },
  'api-read': { open: false, scopes: ['admin', 'all', 'read-only'] },
  dashboard: { open: true, scopes: SCOPES },
  'slot-mutation': { open: false, scopes: ['admin'] },
  'token-management': { open: false, scopes: ['admin'] },
  'api-mutation': { open: false, scopes: ['admin'] },
}

/** Open even with auth on (docs/api.md#open-endpoints), with the methods each serves. */
export const OPEN_ENDPOINTS: Readonly<Record<string, readonly string[]>> = {
  '/api/health/system': ['GET', 'HEAD'],
  '/api/status': ['GET', 'HEAD'],
  '/api/metrics': ['GET', 'HEAD'],
  '/api/features': ['GET', 'HEAD'],
  '/api/install/state': ['GET', 'HEAD'],
  '/api/install/complete': ['POST'],
  '/api/config/urls': ['GET', 'HEAD'],
  '/api/auth/status': ['GET', 'HEAD'],
  '/api/auth/login': ['GET', 'HEAD', 'POST'],
}

export function isScope(value: unknown): value is Scope {
  return typeof value === 'string' && (SCOPES as readonly string[]).includes(value)
}

/** Whether `scope` may use `routeClass`. Open classes allow everyone; `null` (no identity) only those. */
export function allows(scope: Scope | null, routeClass: RouteClass): boolean {
  const policy = POLICY[routeClass]
  return policy.open || (scope !== null && policy.scopes.includes(scope))
}

/** Whether a class needs no credentials. */
export function isOpen(routeClass: RouteClass): boolean {
  return POLICY[routeClass].open
}

/**
 * The route class of a request, from its method and its path as the router sees it (Hono's
 * `c.req.path`: percent-decoded except reserved characters, no query).
 */
export function classify(method: string, rawPath: string): RouteClass {
  const m = method === 'GET' || method === 'POST' ? method : method.toUpperCase()
  const read = m === 'GET' || m === 'HEAD'
  const path = rawPath.length > 1 && rawPath.endsWith('/') ? rawPath.slice(0, -1) : rawPath
  if (!isPlainPath(path)) return 'api-mutation'

  const openMethods = OPEN_ENDPOINTS[path]
  if (openMethods) return openMethods.includes(m) ? 'open' : 'api-mutation'

  if (path === '/v1' || path.startsWith('/v1/')) {
    if (read && (path === '/v1/models' || path.startsWith('/v1/models/'))) return 'v1-models'
    return 'v1-inference'
  }
  if (path === '/api' || path.startsWith('/api/')) {
    const ollama = classifyOllama(m, path)
    if (ollama) return ollama
    if (under(path, '/api/auth/tokens')) return 'token-management'
    if (under(path, '/api/images/cache')) return read ? 'image-cache' : 'api-mutation'
    if (read) return 'api-read'
    if (under(path, '/api/slots') || under(path, '/api/models')) return 'slot-mutation'
    return 'api-mutation'
  }
  // `/V1/models`, `/Api/slots`: svc's routes are case-sensitive, but a proxy in front may not be
  // (Caddy's path matchers fold case), so another spelling of an API prefix is never a public file.
  if (isApiPrefixInAnotherCase(path)) return 'api-mutation'
  return read ? 'dashboard' : 'api-mutation'
}

function isApiPrefixInAnotherCase(path: string): boolean {
  const head = path.slice(0, 5).toLowerCase()
  return head === '/v1' || head.startsWith('/v1/') || head === '/api' || head === '/api/'
}

function under(path: string, prefix: string): boolean {
  return path === prefix || path.startsWith(`${prefix}/`)
}

/** An absolute path without empty, `.` or `..` segments (the root `/` is plain). No allocation: hot path. */
function isPlainPath(path: string): boolean {
  if (path.charCodeAt(0) !== 47) return false
  if (path.length === 1) return true
  if (path.includes('//') || path.endsWith('/')) return false
  return !(path.includes('/./') || path.includes('/../') || path.endsWith('/.') || path.endsWith('/..'))
}
