/**
 * The typed client: `hono/client` over the API's `AppType` (types only; nothing of the server is
 * bundled). Every request carries the session's bearer token. `ok()` turns an error answer into an
 * `ApiError` with the server's message and the field it names (`param`).
 */
import type { AppType } from '@svc/api'
import { readErrorBody } from '@svc/core'
import { hc } from 'hono/client'
import { authHeaders } from './session'

export const api = hc<AppType>(globalThis.location?.origin ?? 'http://localhost', {
  headers: () => authHeaders(),
})

export class ApiError extends Error {
  constructor(
    message: string,
    readonly status: number,
    readonly code: string | null,
    readonly param: string | null,
  ) {
    super(message)
  }
}

/** Reads an error body (svc's `{error:{code,message,param}}`, or anything else) into an ApiError. */
export async function errorOf(res: Response): Promise<ApiError> {
  const read = readErrorBody(await res.text().catch(() => ''), `HTTP ${res.status}`)
  return new ApiError(read.message, res.status, read.code, read.param)
}

/** Awaits a typed call; resolves with its JSON, or throws the ApiError the server answered. */
export async function ok<R extends Response & { json(): Promise<unknown> }>(
  call: Promise<R>,
): Promise<Awaited<ReturnType<R['json']>>> {
  const res = await call
  if (!res.ok) throw await errorOf(res)
  return (await res.json()) as Awaited<ReturnType<R['json']>>
}

/** A plain fetch with the session's headers, for what the typed client cannot express (binary, SSE, multipart). */
export async function request(path: string, init: RequestInit = {}): Promise<Response> {
  const res = await fetch(path, {
    ...init,
    headers: { ...authHeaders(), ...(init.headers as Record<string, string>) },
  })
  if (!res.ok) throw await errorOf(res)
  return res
}

/** POSTs `body` as JSON with the session's headers (the playground's `/v1/*` calls); throws an ApiError. */
export function postJson(path: string, body: unknown): Promise<Response> {
  return request(path, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  })
}

/**
 * Sends JSON to a URL built by the typed client (`api.….$url(…)`), for routes whose body or query the
 * server validates itself (so the typed client does not know their input). Resolves with the JSON.
 */
export async function send<T = unknown>(method: string, url: URL, body?: unknown): Promise<T> {
  const res = await request(url.pathname + url.search, {
    method,
    ...(body === undefined
      ? {}
      : { body: JSON.stringify(body), headers: { 'content-type': 'application/json' } }),
  })
  return (await res.json()) as T
}
