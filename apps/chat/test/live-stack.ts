/** The real parts behind the chat app in tests: the API with llama-server slots and espeak-ng. */
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import {
  type ApiProcess,
  llamaProcessing,
  programAvailable,
  requireLlamaServer,
  startApi,
  tokensPredictedIn,
  writeSvcConfig,
  writeTinyGguf,
} from '@svc/testing'

/** Whether llama-server (and, when asked, espeak-ng and ffmpeg) are here; missing parts fail CI. */
export function partsAvailable(options: { speech?: boolean } = {}): boolean {
  if (!requireLlamaServer()) return false
  const speech = ['espeak-ng', 'ffmpeg'] as const
  return (
    !options.speech ||
    speech.every((program) => programAvailable(program, 'run ./scripts/setup.sh (apt: espeak-ng ffmpeg)'))
  )
}

/** One thread and a small context: two cores are shared by everything in a test run. */
const LIGHT = '"-c", "256", "-np", "1", "--threads", "1"'

export interface LiveStack extends AsyncDisposable {
  api: ApiProcess
  dir: string
}

export interface LiveStackOptions {
  /** `tts` with espeak-ng as well. */
  speech?: boolean
  /** A `slow` slot with a bigger tiny model and no answer limit (Stop has something to stop). */
  slow?: boolean
  /**
   * A `second` chat slot that is not loaded: its file names the tiny chat model as its default (a load
   * without a model loads it) and lets it load on request, so `/v1/models` lists it either way.
   */
  second?: boolean
  /** `primary`'s context in tokens (default 256): room for a long conversation of short turns. */
  context?: number
  env?: Record<string, string>
}

/**
 * Starts the API with `primary` (a tiny random-weight chat model, answers capped at 24 tokens so
 * tests stay quick), and optionally `slow` and `tts`, all loaded and ready.
 */
export async function startLiveStack(options: LiveStackOptions = {}): Promise<LiveStack> {
  const dir = await mkdtemp(join(tmpdir(), 'svc-chat-live-'))
  const chat = await writeTinyGguf(join(dir, 'tiny-chat.gguf'), {
    role: 'chat',
    ...(options.context ? { contextLength: options.context } : {}),
  })
  const primaryArgs = options.context ? LIGHT.replace('"256"', `"${options.context}"`) : LIGHT
  const slots: Record<string, string> = { primary: `args = [${primaryArgs}, "-n", "24"]\n` }
  const loads: [string, string][] = [['primary', chat.path]]
  if (options.slow) {
    // Big enough that each token takes ~10 ms, with room for ~4000 of them: an answer streams for
    // half a minute or more, so that on a loaded box it is still streaming when a test stops it
    // (Stop has something to stop). The context is the model's own too: llama-server caps `-c` at
    // the context the model was trained for (512 by default here, which ended answers after ~470
    // tokens, ~5 s).
    const slow = await writeTinyGguf(join(dir, 'tiny-slow.gguf'), {
      role: 'chat',
      nEmbd: 512,
      nLayer: 8,
      nFf: 1024,
      contextLength: 4096,
    })
    slots.slow = `provider = "llm"\nargs = ["-c", "4096", "-np", "1", "--threads", "1"]\n`
    loads.push(['slow', slow.path])
  }
  if (options.second) {
    slots.second = `provider = "llm"\nload_on_request = true\nargs = [${LIGHT}, "-n", "24"]\n[model]\ndefault = ${JSON.stringify(chat.path)}\n`
  }
  if (options.speech) loads.push(['tts', 'espeak-ng'])
  const configDir = await writeSvcConfig(join(dir, 'config'), { slots })
  const api = await startApi({ configDir, ...(options.env ? { env: options.env } : {}) })
  // With auth on, the test loads as the proxy would vouch for an admin (loopback + the secret).
  const admin: Record<string, string> =
    options.env?.SVC_AUTH_ENABLED === '1'
      ? { 'x-forwarded-email': 'test-admin', 'x-svc-proxy-secret': options.env.SVC_PROXY_SECRET ?? '' }
      : {}
  try {
    for (const [slot, model] of loads) await load(api, slot, model, admin)
  } catch (error) {
    await api[Symbol.asyncDispose]()
    throw error
  }
  return {
    api,
    dir,
    async [Symbol.asyncDispose]() {
      await api[Symbol.asyncDispose]()
      await rm(dir, { recursive: true, force: true })
    },
  }
}

/** Loads a model into a slot and waits until it is ready (`headers`: credentials when auth is on). */
export async function load(
  api: ApiProcess,
  slot: string,
  model: string,
  headers: Record<string, string> = {},
): Promise<void> {
  const res = await fetch(`${api.url}/api/slots/${slot}/load?wait=true`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify({ model }),
  })
  if (res.status !== 200) {
    throw new Error(
      `load of ${model} into ${slot}: ${res.status} ${await res.text()}\n${api.output().slice(-3000)}`,
    )
  }
}

/** llama-server's own count of generated tokens for a slot (from the API's metrics). */
export async function tokensPredicted(api: ApiProcess, slot: string): Promise<number> {
  return tokensPredictedIn(await (await fetch(`${api.url}/api/metrics`)).text(), slot)
}

/** Whether the slot's llama-server is generating right now (its own `/slots`). */
export async function upstreamBusy(api: ApiProcess, slot: string): Promise<boolean> {
  const info = (await (await fetch(`${api.url}/api/slots/${slot}`)).json()) as {
    upstream?: { base?: string; pid?: number }
  }
  return llamaProcessing(info.upstream ?? {})
}
