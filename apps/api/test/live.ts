/** Helpers for tests that drive a real API process with real upstreams. */
import { execFile } from 'node:child_process'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { findEngine } from '@svc/engines'
import { type ApiProcess, missingPart, REPO_ROOT } from '@svc/testing'
import OpenAI from 'openai'
import { writePlaceholderWeights } from './placeholder-weights'

const exec = promisify(execFile)

/** Whether the real llama-server is here; in CI its absence fails the test run. */
export function llamaServerAvailable(): boolean {
  if (findEngine('llama-server')) return true
  missingPart('llama-server', 'run ./scripts/setup.sh (it builds llama-server into ~/.cache/svc)')
  return false
}

export async function call<T = Record<string, unknown>>(
  api: ApiProcess,
  path: string,
  init: RequestInit & { json?: unknown } = {},
) {
  const { json, ...rest } = init
  const res = await fetch(api.url + path, {
    ...rest,
    ...(json !== undefined
      ? { body: JSON.stringify(json), headers: { 'content-type': 'application/json', ...rest.headers } }
      : {}),
  })
  const text = await res.text()
  let body: unknown = text
  try {
    body = JSON.parse(text)
  } catch {
    // keep text
  }
  return { status: res.status, body: body as T, headers: res.headers }
}

export interface SlotBody {
  name: string
  state: string
  model: string | null
  lastError: string | null
  inflight: number
  restarts: number
  upstream: { pid?: number; base?: string; container?: string } | null
}

/** Polls the slot until `predicate` holds (or fails after `timeoutMs`). */
export async function waitForSlot(
  api: ApiProcess,
  slot: string,
  predicate: (s: SlotBody) => boolean,
  timeoutMs = 30_000,
): Promise<SlotBody> {
  const deadline = Date.now() + timeoutMs
  let last: SlotBody | undefined
  while (Date.now() < deadline) {
    last = (await call<SlotBody>(api, `/api/slots/${slot}`)).body
    if (predicate(last)) return last
    await new Promise((r) => setTimeout(r, 100))
  }
  throw new Error(`slot ${slot} never matched; last: ${JSON.stringify(last)}\n${api.output().slice(-3000)}`)
}

/** Collects `/api/events` SSE events until `stop` returns true. */
export async function collectEvents(
  api: ApiProcess,
  stop: (events: { event: string; data: Record<string, unknown> }[]) => boolean,
  timeoutMs = 60_000,
) {
  const events: { event: string; data: Record<string, unknown> }[] = []
  const ac = new AbortController()
  const timer = setTimeout(() => ac.abort(), timeoutMs)
  const res = await fetch(`${api.url}/api/events`, { signal: ac.signal })
  let opened!: () => void
  const open = new Promise<void>((r) => {
    opened = r
  })
  const done = (async () => {
    const decoder = new TextDecoder()
    let buf = ''
    try {
      for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
        buf += decoder.decode(chunk, { stream: true })
        let i = buf.indexOf('\n\n')
        while (i >= 0) {
          const block = buf.slice(0, i)
          buf = buf.slice(i + 2)
          i = buf.indexOf('\n\n')
          const event = /^event: (.*)$/m.exec(block)?.[1]
          const data = /^data: (.*)$/m.exec(block)?.[1]
          if (event && data) {
            events.push({ event, data: JSON.parse(data) })
            if (event === 'snapshot') opened()
            if (stop(events)) {
              ac.abort()
              return events
            }
          }
        }
      }
    } catch {
      // aborted
    } finally {
      clearTimeout(timer)
    }
    return events
  })()
  await open
  return { done, events }
}

/** Runs the svc CLI as a child process against `api`. */
export async function cli(
  api: ApiProcess,
  args: string[],
): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await exec(
      process.execPath,
      [join(REPO_ROOT, 'apps/cli/bin/svc.js'), ...args],
      {
        env: { ...process.env, SVC_API_URL: api.url },
      },
    )
    return { code: 0, stdout, stderr }
  } catch (error) {
    const e = error as { code: number; stdout: string; stderr: string }
    return { code: e.code, stdout: e.stdout, stderr: e.stderr }
  }
}

/**
 * The official `openai` client for svc's /v1 (only `baseURL` changed; the key is unused with auth off)
 * with retries off, so a test sees svc's first answer.
 */
export function openaiClient(api: ApiProcess): OpenAI {
  return new OpenAI({ baseURL: `${api.url}/v1`, apiKey: 'unused', maxRetries: 0 })
}

/** The fields of a chat request that tests vary; the user's one message defaults to "hi". */
export interface ChatRequest {
  model: string
  content?: string
  max_tokens?: number
  ignore_eos?: boolean
}

/** POSTs a chat (not streamed) to svc's /v1 through `call`: its status, parsed body and headers. */
export function sendChat<T = Record<string, unknown>>(api: ApiProcess, request: ChatRequest) {
  const { content = 'hi', ...fields } = request
  return call<T>(api, '/v1/chat/completions', {
    method: 'POST',
    json: { ...fields, messages: [{ role: 'user', content }] },
  })
}

/**
 * POSTs a chat with `stream: true` to svc's /v1 with plain fetch and resolves with the response as
 * soon as its headers arrive: the test reads the SSE body itself (or aborts it with `signal`).
 */
export function streamChat(
  api: { url: string },
  request: ChatRequest,
  init: { headers?: Record<string, string>; signal?: AbortSignal } = {},
): Promise<Response> {
  const { content = 'hi', ...fields } = request
  return fetch(`${api.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...init.headers },
    body: JSON.stringify({ ...fields, stream: true, messages: [{ role: 'user', content }] }),
    ...(init.signal ? { signal: init.signal } : {}),
  })
}

/** A streamed chat held open: the request is in flight upstream until `stop()`. */
export interface HeldStream extends AsyncDisposable {
  /** The first chunk of the SSE body, as text. */
  first: string
  /** Aborts the request (the client goes away) and waits until the body is let go; safe to call twice. */
  stop(): Promise<void>
}

/** Starts a streamed chat (see `streamChat`) and waits for its first chunk before it resolves. */
export async function holdStream(api: { url: string }, request: ChatRequest): Promise<HeldStream> {
  const abort = new AbortController()
  const res = await streamChat(api, request, { signal: abort.signal })
  const reader = res.body!.getReader()
  const first = new TextDecoder().decode((await reader.read()).value)
  const stop = async () => {
    abort.abort()
    await reader.cancel().catch(() => undefined)
  }
  return { first, stop, [Symbol.asyncDispose]: stop }
}

/** Slot config that keeps llama-server small on a 2-core machine. */
export const LIGHT_ARGS = 'args = ["-c", "256", "-np", "1", "--threads", "1"]\n'

/** svc's JSON error body (what every refusal answers). */
export interface ErrorBody {
  error: { code: string; message: string; type: string; param: string | null }
}

/**
 * POSTs a load of `slot` with `body` (`{ model, mmproj?, sha256? }`; `{}` for the slot's default)
 * and resolves with the answer, whatever its status; `wait` (default true) waits for ready or failure.
 */
export function requestLoad<T = SlotBody & Partial<ErrorBody>>(
  api: ApiProcess,
  slot: string,
  body: Record<string, unknown>,
  options: { wait?: boolean } = {},
) {
  const wait = options.wait ?? true
  return call<T>(api, `/api/slots/${slot}/load${wait ? '?wait=true' : ''}`, { method: 'POST', json: body })
}

/** Loads `model` into `slot` and waits for ready; fails with the API's log when it does not. */
export async function loadOk(api: ApiProcess, slot: string, model: string): Promise<SlotBody> {
  const r = await requestLoad<SlotBody>(api, slot, { model })
  if (r.status !== 200)
    throw new Error(
      `load of ${model} into ${slot} answered ${r.status}: ${JSON.stringify(r.body)}\n${api.output().slice(-4000)}`,
    )
  return r.body
}

/**
 * Adds slot `echo` through the API (provider `echo`: fixtures/echo-provider.ts, which the API must
 * have in SVC_PROVIDER_MODULES) and loads it with a placeholder weights file; fails as `loadOk` does.
 */
export async function loadEchoSlot(api: ApiProcess): Promise<SlotBody> {
  await call(api, '/api/slots/echo', { method: 'PUT', json: { provider: 'echo' } })
  return loadOk(api, 'echo', await writePlaceholderWeights(api.stateDir))
}
