import type { ChildProcess } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { type ChildExit, spawnWatched } from './watched-child'

/** Path of the fake upstream program (plain JavaScript, run with `node`). */
export const FAKE_UPSTREAM_BIN = fileURLToPath(new URL('../bin/fake-upstream.mjs', import.meta.url))

/** Upstream error bodies `--error-shape` can produce (llama-server, plain text, HTML, FastAPI, FLM). */
export const FAKE_UPSTREAM_ERROR_SHAPES = ['llama', 'text', 'html', 'detail', '200-error'] as const
export type FakeUpstreamErrorShape = (typeof FAKE_UPSTREAM_ERROR_SHAPES)[number]

/** The program's flags, camelCased; see `bin/fake-upstream.mjs --help`. */
export interface FakeUpstreamFlags {
  /** Default 127.0.0.1. */
  host?: string
  /** Default 0 (the program picks one and reports it). */
  port?: number
  /** Id in `/v1/models` and in every response. Default `fake-model`. */
  model?: string
  /** Wait before answering an inference request. */
  delayMs?: number
  /** Content chunks per streamed response (then a finish chunk and `[DONE]`). Default 5. */
  streamChunks?: number
  chunkIntervalMs?: number
  /** `/health` always answers 503. */
  failHealth?: boolean
  /** `/health` answers 503 "Loading model" until this long after start. */
  healthAfterMs?: number
  /** Exit 1 once the Nth request is answered or abandoned (`/health` and `/debug/*` do not count). */
  crashAfter?: number
  /** Reset the connection and exit 1 halfway through a stream. */
  crashMidStream?: boolean
  /** Survive SIGTERM; only SIGKILL ends it. */
  ignoreSigterm?: boolean
  /** Answer every inference request with this kind of upstream error. */
  errorShape?: FakeUpstreamErrorShape
}

/** How the fake upstream ended (its exit code or the signal that ended it). */
export type FakeUpstreamExit = ChildExit

export interface FakeUpstream extends AsyncDisposable {
  /** `http://127.0.0.1:<port>`, no trailing slash. */
  url: string
  port: number
  pid: number
  child: ChildProcess
  /** Settles when the process exits (e.g. after `crashAfter`), with its code or signal. */
  exited: Promise<FakeUpstreamExit>
  /** What the program wrote to stdout and stderr so far. */
  output(): string
  /**
   * Sends `signal` (default SIGTERM) to this child, escalates to SIGKILL after `graceMs` (default
   * 5000), and resolves with how it exited. Safe to call again or after the process died.
   */
  stop(signal?: NodeJS.Signals, graceMs?: number): Promise<FakeUpstreamExit>
}

/** The command-line arguments for `flags` (kebab-case; booleans only when true). */
export function fakeUpstreamArgs(flags: FakeUpstreamFlags): string[] {
  const args: string[] = []
  for (const [key, value] of Object.entries(flags)) {
    if (value === undefined || value === false) continue
    const flag = `--${key.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`
    if (value === true) args.push(flag)
    else args.push(flag, String(value))
  }
  return args
}

const LISTENING = /^fake-upstream listening on (http:\/\/\S+)$/m

/**
 * Spawns the fake upstream with `process.execPath` and resolves once it prints its listening line.
 * Rejects (and kills it) if it exits first or does not listen within `timeoutMs` (default 10 s).
 * Disposing stops it: SIGTERM, or SIGKILL straight away when it was told to ignore SIGTERM.
 */
export async function startFakeUpstream(
  flags: FakeUpstreamFlags = {},
  options: { timeoutMs?: number } = {},
): Promise<FakeUpstream> {
  const upstream = spawnWatched(process.execPath, [FAKE_UPSTREAM_BIN, ...fakeUpstreamArgs(flags)])
  const url = await upstream.waitFor(LISTENING, {
    what: 'fake-upstream',
    timeoutMs: options.timeoutMs ?? 10_000,
  })
  const stop = (signal: NodeJS.Signals = 'SIGTERM', graceMs = 5_000) => upstream.stop(signal, graceMs)
  const child = upstream.child
  return {
    url,
    port: Number(new URL(url).port),
    pid: child.pid!,
    child,
    exited: upstream.exited,
    output: upstream.output,
    stop,
    async [Symbol.asyncDispose]() {
      await stop(flags.ignoreSigterm ? 'SIGKILL' : 'SIGTERM')
    },
  }
}
