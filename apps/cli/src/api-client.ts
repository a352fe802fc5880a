import { readErrorBody } from '@svc/core'
import type { CliContext } from './context'
import { CliError } from './context'
import { cliVar } from './env-variables'

export interface ApiResponse<T> {
  status: number
  body: T
}

/**
 * Calls the running API. Sends `SVC_TOKEN` as a bearer token when set. A refused connection becomes
 * a CliError that says which URL was tried and how to change it.
 */
export async function callApi<T = unknown>(
  ctx: CliContext,
  path: string,
  init: RequestInit = {},
): Promise<ApiResponse<T>> {
  const headers = new Headers(init.headers)
  for (const [name, value] of Object.entries(bearer(ctx))) headers.set(name, value)
  if (init.body && !headers.has('content-type')) headers.set('content-type', 'application/json')
  let res: Response
  try {
    res = await fetch(ctx.apiUrl + path, { ...init, headers })
  } catch (error) {
    throw new CliError(
      `cannot reach the svc API at ${ctx.apiUrl} (${causeOf(error)}); is it running? (--url URL or SVC_API_URL to use another address)`,
    )
  }
  const text = await res.text()
  let body: unknown = text
  try {
    body = text ? JSON.parse(text) : null
  } catch {
    // not JSON: keep the text
  }
  return { status: res.status, body: body as T }
}

const warned = new WeakSet<CliContext>()

/**
 * The `Authorization` header for `SVC_TOKEN` (empty without one). The first time per run it warns on
 * stderr when the token would travel in clear text to another machine: `SVC_API_URL` is neither
 * https nor a loopback address (`localhost`, 127.0.0.0/8, ::1). It still sends it: the operator may
 * know the network; the warning says what is at stake.
 */
export function bearer(ctx: CliContext): Record<string, string> {
  const token = cliVar(ctx.env, 'SVC_TOKEN')
  if (!token) return {}
  if (!warned.has(ctx) && !safeForTokens(ctx.apiUrl)) {
    warned.add(ctx)
    ctx.stderr.write(
      `svc: warning: sending SVC_TOKEN in clear text to ${ctx.apiUrl}: not https and not loopback (anyone on the way can read and reuse it); use https or a loopback address\n`,
    )
  }
  return { authorization: `Bearer ${token}` }
}

/** https anywhere, or plain http to this machine's loopback. */
export function safeForTokens(apiUrl: string): boolean {
  let url: URL
  try {
    url = new URL(apiUrl)
  } catch {
    return false
  }
  if (url.protocol === 'https:') return true
  const host = url.hostname.replace(/^\[|\]$/g, '').toLowerCase()
  return (
    host === 'localhost' || host.endsWith('.localhost') || host === '::1' || /^127(\.\d{1,3}){3}$/.test(host)
  )
}

/** Whether the API answers at all (used by commands that can also work on the config dir). */
export async function apiIsUp(ctx: CliContext): Promise<boolean> {
  try {
    const res = await fetch(`${ctx.apiUrl}/api/health/system`, { signal: AbortSignal.timeout(1500) })
    await res.body?.cancel()
    return res.ok
  } catch {
    return false
  }
}

/** Turns an error body from the API into a CliError with its message. */
export function apiError(res: ApiResponse<unknown>): CliError {
  const read = readErrorBody(res.body, `HTTP ${res.status}`)
  return new CliError(read.code ? `${read.message} (${read.code})` : read.message)
}

/** The svc error code an API answer carries (`token.not_found`, `auth.required`, …), or null. */
export function errorCode(res: ApiResponse<unknown>): string | null {
  return readErrorBody(res.body, '').code
}

function causeOf(error: unknown): string {
  const cause = (error as { cause?: { code?: string; message?: string } }).cause
  return cause?.code ?? cause?.message ?? String(error)
}
