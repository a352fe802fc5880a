/** Helpers for tests that drive a real API process with real upstreams. */
import { execFile } from 'node:child_process'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { readSse } from '@svc/core'
import { type ApiProcess, REPO_ROOT, requireLlamaServer } from '@svc/testing'
import { writePlaceholderWeights } from './placeholder-weights'

const exec = promisify(execFile)

/** Whether the real llama-server is here; in CI its absence fails the test run. */
export function llamaServerAvailable(): boolean {
  return requireLlamaServer() !== undefined
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
    try {
      for await (const { event, data } of readSse(res.body as ReadableStream<Uint8Array>)) {
        events.push({ event, data: JSON.parse(data) })
        if (event === 'snapshot') opened()
        if (stop(events)) {
          ac.abort()
          return events
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
