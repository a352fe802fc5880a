/**
 * Test parts for the Realtime API: the real Caddy with its internal CA in front of svc (the official
 * client's `OpenAIRealtimeWS` connects only over `wss:`), speech made by espeak-ng as pcm16 24 kHz,
 * and a log of a session's server events to wait on.
 */
import { execFile } from 'node:child_process'
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { runCaddy } from '@svc/testing'
import OpenAI from 'openai'
import { OpenAIRealtimeWS } from 'openai/realtime/ws'

const exec = promisify(execFile)

async function freePort(): Promise<number> {
  const server = createServer()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const port = (server.address() as { port: number }).port
  await new Promise<void>((resolve) => server.close(() => resolve()))
  return port
}

export interface TlsFront extends AsyncDisposable {
  /** `https://localhost:<port>` */
  url: string
  /** PEM of Caddy's local CA root: the only CA the client trusts. */
  ca: string
  output(): string
}

/** Caddy on a free port with `tls internal`, proxying everything (WebSockets too) to `upstream`. */
export async function startTlsFront(upstream: string): Promise<TlsFront> {
  const dir = await mkdtemp(join(tmpdir(), 'svc-rt-caddy-'))
  const [https, http] = [await freePort(), await freePort()]
  const file = join(dir, 'Caddyfile')
  await writeFile(
    file,
    `{
	admin off
	skip_install_trust
	http_port ${http}
	https_port ${https}
}

https://localhost:${https} {
	tls internal
	reverse_proxy ${new URL(upstream).host}
}
`,
  )
  const rootPath = join(dir, 'caddy/pki/authorities/local/root.crt')
  const url = `https://localhost:${https}`
  const { caddy, ready: ca } = await runCaddy({
    config: file,
    dataDir: dir,
    timeoutMs: 30_000,
    ready: async () => {
      const ca = await readFile(rootPath, 'utf8').catch(() => undefined)
      if (!ca) return undefined
      const { request } = await import('node:https')
      const ok = await new Promise<boolean>((resolve) => {
        const req = request(`${url}/v1/models`, { ca, agent: false }, (res) => {
          res.resume()
          resolve(true)
        })
        req.on('error', () => resolve(false))
        req.end()
      })
      return ok ? ca : undefined
    },
  })
  return {
    url,
    ca,
    output: caddy.output,
    async [Symbol.asyncDispose]() {
      await caddy.stop()
      await rm(dir, { recursive: true, force: true })
    },
  }
}

/** `text` spoken by espeak-ng as raw pcm16 mono 24 kHz (ffmpeg resamples). */
export async function speechPcm(text: string, dir: string, name = 'speech'): Promise<Buffer> {
  const wav = join(dir, `${name}.wav`)
  await exec('espeak-ng', ['-w', wav, text])
  const { stdout } = await exec(
    'ffmpeg',
    ['-v', 'error', '-i', wav, '-f', 's16le', '-ac', '1', '-ar', '24000', 'pipe:1'],
    {
      encoding: 'buffer',
      maxBuffer: 64 * 1024 * 1024,
    },
  )
  return stdout
}

/** `ms` of silence as pcm16 24 kHz. */
export function silencePcm(ms: number): Buffer {
  return Buffer.alloc(Math.round((ms / 1000) * 24_000) * 2)
}

export type Event = { type: string } & Record<string, unknown>

/** Every server event of a session, in order, with waits on them. */
export class EventLog {
  readonly events: Event[] = []
  private waiters: (() => void)[] = []

  push(event: Event): void {
    this.events.push(event)
    for (const wake of this.waiters.splice(0)) wake()
  }

  /** Events of `type` (from index `from`). */
  of(type: string, from = 0): Event[] {
    return this.events.slice(from).filter((e) => e.type === type)
  }

  /** The first event of `type` at or after index `from` that `match` accepts; fails after `timeoutMs`. */
  async next(
    type: string,
    options: { from?: number; timeoutMs?: number; match?: (e: Event) => boolean } = {},
  ) {
    const { from = 0, timeoutMs = 60_000, match = () => true } = options
    const deadline = Date.now() + timeoutMs
    for (;;) {
      const found = this.events.slice(from).find((e) => e.type === type && match(e))
      if (found) return found
      if (Date.now() > deadline) {
        const seen = this.events.map((e) => e.type).join(', ')
        throw new Error(
          `no ${type} within ${timeoutMs} ms; saw: ${seen}\n${JSON.stringify(this.of('error'))}`,
        )
      }
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, 250)
        this.waiters.push(() => {
          clearTimeout(timer)
          resolve()
        })
      })
    }
  }
}

/** `pcm` as `input_audio_buffer.append` events of `chunkMs` each. */
export function appendEvents(
  pcm: Buffer,
  chunkMs = 100,
): { type: 'input_audio_buffer.append'; audio: string }[] {
  const step = Math.round((chunkMs / 1000) * 24_000) * 2
  const out: { type: 'input_audio_buffer.append'; audio: string }[] = []
  for (let at = 0; at < pcm.byteLength; at += step) {
    out.push({ type: 'input_audio_buffer.append', audio: pcm.subarray(at, at + step).toString('base64') })
  }
  return out
}

/** A session opened by the official client (`OpenAIRealtimeWS`) over wss: through `front` with `token`, its events logged. */
export async function openRealtime(
  front: TlsFront,
  token: string,
  model: string,
): Promise<{ rt: OpenAIRealtimeWS; log: EventLog }> {
  const client = new OpenAI({ baseURL: `${front.url}/v1`, apiKey: token, maxRetries: 0 })
  const rt = await OpenAIRealtimeWS.create(client, { model, options: { ca: front.ca } })
  const log = new EventLog()
  rt.on('event', (e) => log.push(e as unknown as Event))
  rt.on('error', () => {}) // error events are in the log
  await log.next('session.created', { timeoutMs: 20_000 })
  return { rt, log }
}

/** `pcm` sent as `input_audio_buffer.append` events of 100 ms. */
export function sendAudio(rt: OpenAIRealtimeWS, pcm: Buffer): void {
  for (const e of appendEvents(pcm)) rt.send(e)
}
