import { type ChildProcess, spawn } from 'node:child_process'
import { findEngine } from '@svc/engines'
import type { TinyGgufRole } from './gguf/tiny-llama'
import { llamaKeyHeaders } from './proc-environ'
import { missingPart } from './require-part'
import { testEnv } from './test-env'

/** The flags each role needs on top of the common ones (what a slot of that role passes too). */
export const LLAMA_ROLE_ARGS: Readonly<Record<TinyGgufRole, readonly string[]>> = {
  chat: ['--jinja'],
  embed: ['--embeddings', '--pooling', 'mean'],
  rerank: ['--reranking'],
}

export interface StartLlamaServerOptions {
  /** Path of the GGUF file (e.g. from `writeTinyGguf`). */
  model: string
  /** Adds {@link LLAMA_ROLE_ARGS} for the role. Default `chat`. */
  role?: TinyGgufRole
  /** Appended last, so they override the defaults (llama.cpp takes the last value of a flag). */
  extraArgs?: readonly string[]
  /** The binary; default `findEngine('llama-server', testEnv.inherited())` (SVC_LLAMA_SERVER, PATH, then the engine cache). */
  binary?: string
  /** `--alias`, the id in `/v1/models`. Default `tiny`. */
  alias?: string
  /** `-c`. Default 256. */
  ctxSize?: number
  /** How long to wait for `/health` to answer 200. Default 30 s. */
  timeoutMs?: number
}

export interface LlamaServer extends AsyncDisposable {
  /** `http://127.0.0.1:<port>`, no trailing slash. */
  url: string
  port: number
  pid: number
  child: ChildProcess
  /** The last 64 KiB of what the server logged (stdout and stderr together). */
  output(): string
  /**
   * Sends `signal` (default SIGTERM) to this child only, escalates to SIGKILL after 5 s, and resolves
   * once it has exited. Idempotent: later calls return the same promise.
   */
  stop(signal?: NodeJS.Signals): Promise<void>
}

const LISTENING = /listening on (http:\/\/[\d.]+:(\d+))/
const OUTPUT_CAP = 64 * 1024

/** The llama-server binary tests should use, or undefined when none is built (see `missingPart`). */
export function findLlamaServer(): string | undefined {
  return findEngine('llama-server', testEnv.inherited())?.path
}

/**
 * Starts the real `llama-server` on 127.0.0.1 with `--port 0`, reads the port it bound from its log,
 * and resolves once `GET /health` answers 200 (the model is loaded). Common flags: `-m`, `--alias`,
 * `--metrics`, `-c`, `-np 1`, `--threads 1`, then the role's flags, then `extraArgs`. Rejects (and
 * kills the child) when the binary is missing, the server exits early, or the deadline passes.
 */
/**
 * The llama-server binary for a test file; when there is none, reports it with {@link missingPart}
 * (throws in CI, warns elsewhere) and returns undefined, for `describe.skipIf(!binary)`.
 */
export function requireLlamaServer(): string | undefined {
  const binary = findLlamaServer()
  if (!binary) {
    missingPart(
      'llama-server',
      'run ./scripts/setup.sh (builds it into ~/.cache/svc/engines) or set SVC_LLAMA_SERVER',
    )
  }
  return binary
}

export async function startLlamaServer(options: StartLlamaServerOptions): Promise<LlamaServer> {
  const binary = options.binary ?? findLlamaServer()
  if (!binary) throw new Error('llama-server not found: set SVC_LLAMA_SERVER or run ./scripts/setup.sh')
  const args = [
    '--host',
    '127.0.0.1',
    '--port',
    '0',
    '-m',
    options.model,
    '--alias',
    options.alias ?? 'tiny',
    '--metrics',
    '-c',
    String(options.ctxSize ?? 256),
    '-np',
    '1',
    '--threads',
    '1',
    ...LLAMA_ROLE_ARGS[options.role ?? 'chat'],
    ...(options.extraArgs ?? []),
  ]
  const child = spawn(binary, args, { stdio: ['ignore', 'pipe', 'pipe'] })
  let out = ''
  const collect = (d: Buffer) => {
    out += d.toString()
    if (out.length > OUTPUT_CAP * 2) out = out.slice(-OUTPUT_CAP)
  }
  child.stdout?.on('data', collect)
  child.stderr?.on('data', collect)
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()))
  const spawnFailed = new Promise<never>((_, reject) => child.once('error', reject))

  let stopping: Promise<void> | undefined
  const stop = (signal: NodeJS.Signals = 'SIGTERM') => {
    stopping ??= (async () => {
      if (child.exitCode !== null || child.signalCode !== null) return
      child.kill(signal)
      const timer = setTimeout(() => child.kill('SIGKILL'), 5_000)
      await exited
      clearTimeout(timer)
    })()
    return stopping
  }

  const deadline = Date.now() + (options.timeoutMs ?? 30_000)
  const done = new AbortController()
  try {
    const url = await Promise.race([
      waitForHealthy(() => out, deadline, done.signal),
      spawnFailed,
      exitedEarly(exited, () => out),
    ])
    return {
      url,
      port: Number(new URL(url).port),
      pid: child.pid!,
      child,
      output: () => out.slice(-OUTPUT_CAP),
      stop,
      [Symbol.asyncDispose]: () => stop(),
    }
  } catch (err) {
    await stop('SIGKILL')
    throw err
  } finally {
    done.abort()
  }
}

async function exitedEarly(exited: Promise<void>, output: () => string): Promise<never> {
  await exited
  throw new Error(`llama-server exited before it was ready:\n${output().slice(-4000)}`)
}

async function waitForHealthy(output: () => string, deadline: number, done: AbortSignal): Promise<string> {
  while (Date.now() < deadline && !done.aborted) {
    const url = LISTENING.exec(output())?.[1]
    if (url) {
      const res = await fetch(`${url}/health`).catch(() => undefined)
      await res?.body?.cancel()
      if (res?.status === 200) return url
    }
    await new Promise((r) => setTimeout(r, 50))
  }
  throw new Error(`llama-server was not healthy in time:\n${output().slice(-4000)}`)
}

/**
 * Whether the llama-server svc started as `upstream` (a slot's `upstream`: base URL and pid) is
 * generating right now: any of its own `/slots` processing, asked with its own key. After a client
 * leaves, llama-server notices at its next write and cancels in its task queue, so poll this.
 */
export async function llamaProcessing(upstream: { base?: string; pid?: number }): Promise<boolean> {
  if (!upstream.base || !upstream.pid) throw new Error('the slot has no llama-server process (not loaded?)')
  const res = await fetch(`${upstream.base}/slots`, {
    headers: await llamaKeyHeaders(upstream.pid),
    signal: AbortSignal.timeout(10_000),
  })
  return ((await res.json()) as { is_processing: boolean }[]).some((s) => s.is_processing)
}

/** llama-server's count of generated tokens for `slot` in svc's `/api/metrics` text; NaN when absent. */
export function tokensPredictedIn(metrics: string, slot: string): number {
  const m = new RegExp(`^llamacpp:tokens_predicted_total\\{slot="${slot}"\\} (\\d+)`, 'm').exec(metrics)
  return Number(m?.[1] ?? Number.NaN)
}
