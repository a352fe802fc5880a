/**
 * What the switch section compares, each serving the same two GGUFs (`tiny-a`, `tiny-b` in one
 * folder) with the same engine arguments (`-c 512 --threads 1`): the engine cold-started for every
 * request, llama.cpp's router mode (`llama-server --models-dir`), and svc (the build) loading on
 * request. Each says which upstream processes serve it, so a run can tell whether anything reloaded.
 */
import { type ChildProcess, spawn } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { readdir, readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { isAlive } from '@svc/core/node'
import { freePort } from '@svc/providers/internals'
import { type ApiProcess, findLlamaServer, postJson, startApiWithConfig } from '@svc/testing'
import { timedChat, untilHealthy } from './chat-client'

/** The engine's arguments in every column (the router passes its own `-c`/`--threads` to its children). */
export const ENGINE_ARGS = ['-c', '512', '--threads', '1']
export type Ref = 'tiny-a' | 'tiny-b'

export interface SwitchPeer {
  name: string
  /** Sends one 4-token chat request for `model`; resolves with the ms the client waited. */
  send(model: Ref): Promise<number>
  /** The pids of the engine processes serving now (empty where none stays running). */
  pids(): Promise<number[]>
  stop(): Promise<void>
  /**
   * CPU time (ms, user + system) the process in the middle has used so far: svc's API process, the
   * router's own process (not its engines). Undefined where nothing stands between client and engine.
   */
  cpuMs?(): number
}

/** A process's CPU time so far (ms): `/proc/<pid>/stat` utime + stime, in clock ticks of 10 ms. */
export function cpuMsOf(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ')
  return (Number(fields[11]) + Number(fields[12])) * 10
}

const chat = (base: string, model: Ref) =>
  timedChat(base, { model, messages: [{ role: 'user', content: 'hi' }], max_tokens: 4 }).then((t) => {
    if (t.model !== model) throw new Error(`${base}: asked ${model}, ${t.model} answered`)
    return t.ms
  })

const listen = (port: number) => ['--host', '127.0.0.1', '--port', String(port)]

function engine(): string {
  const path = findLlamaServer()
  if (!path) throw new Error('llama-server not found: run ./scripts/setup.sh or set SVC_LLAMA_SERVER')
  return path
}

/** The engine alone: a llama-server started for each request, `/health` polled every 5 ms, then stopped. */
export function engineAlone(dir: string): SwitchPeer {
  return {
    name: 'engine alone (cold start per request)',
    async send(model) {
      const port = await freePort('127.0.0.1')
      const began = performance.now()
      const weights = ['-m', join(dir, `${model}.gguf`), '--alias', model]
      const child = spawn(engine(), [...weights, ...listen(port), ...ENGINE_ARGS], { stdio: 'ignore' })
      try {
        await untilHealthy(`http://127.0.0.1:${port}/health`, () => child.exitCode !== null)
        await chat(`http://127.0.0.1:${port}`, model)
        return performance.now() - began
      } finally {
        await stopChild(child)
      }
    },
    pids: async () => [],
    stop: async () => undefined,
  }
}

/**
 * llama.cpp's router: `llama-server --models-dir dir --models-max max`, which spawns one child
 * llama-server per model on demand and stops the least recently used past `max`. Started as the
 * leader of its own process group, so stopping the group ends its children too.
 */
export async function router(dir: string, max: number): Promise<SwitchPeer> {
  const port = await freePort('127.0.0.1')
  const models = ['--models-dir', dir, '--models-max', String(max)]
  const child = spawn(engine(), [...models, ...listen(port), ...ENGINE_ARGS], {
    stdio: 'ignore',
    detached: true,
  })
  const base = `http://127.0.0.1:${port}`
  await untilHealthy(`${base}/health`, () => child.exitCode !== null)
  const pid = child.pid!
  // A child is listed under the thread that spawned it: read every thread's list.
  const children = async () => {
    const tasks = await readdir(`/proc/${pid}/task`).catch(() => [] as string[])
    const lists = await Promise.all(
      tasks.map((t) => readFile(`/proc/${pid}/task/${t}/children`, 'utf8').catch(() => '')),
    )
    return lists.flatMap((l) => l.split(' ').filter(Boolean).map(Number)).sort((a, b) => a - b)
  }
  return {
    name: `llama.cpp router, --models-max ${max}`,
    send: (model) => chat(base, model),
    cpuMs: () => cpuMsOf(pid),
    pids: children,
    async stop() {
      const left = await children()
      process.kill(-pid, 'SIGTERM')
      const deadline = Date.now() + 5_000
      while ([pid, ...left].some((p) => isAlive(p)) && Date.now() < deadline)
        await new Promise((r) => setTimeout(r, 50))
      if ([pid, ...left].some((p) => isAlive(p))) process.kill(-pid, 'SIGKILL')
    },
  }
}

/**
 * svc (the build, auth off) with `primary` loading on request (process runtime, CPU). `maxLoaded`
 * undefined: memory decides (room for both here, so the second model opens a spare slot); 1: a swap
 * on every alternation. Both refs are registered by loading each file once, ending with `tiny-a`.
 */
export async function svcPeer(dir: string, maxLoaded?: number): Promise<SwitchPeer> {
  const api = await startApiWithConfig({
    built: true,
    env: { SVC_LOG_LEVEL: 'info' },
    slots: {
      primary: `runtime = "process"\nbackend = "cpu"\nrestart = "no"\nargs = ${JSON.stringify(ENGINE_ARGS)}\nload_on_request = true\n${maxLoaded ? `max_loaded = ${maxLoaded}\n` : ''}`,
    },
  })
  for (const ref of ['tiny-b', 'tiny-a']) await loadSlot(api, 'primary', join(dir, `${ref}.gguf`))
  return {
    name:
      maxLoaded === 1 ? 'svc, max_loaded = 1 (a swap per request)' : 'svc, memory room for both (spare slot)',
    send: (model) => chat(api.url, model),
    cpuMs: () => cpuMsOf(api.pid),
    async pids() {
      const { slots } = (await (await fetch(`${api.url}/api/slots`)).json()) as {
        slots: { upstream: { pid?: number } | null }[]
      }
      return slots.flatMap((s) => (s.upstream?.pid ? [s.upstream.pid] : []))
    },
    stop: async () => await api[Symbol.asyncDispose](),
  }
}

/** Loads `model` into `slot` and waits until it is ready (`?wait=true`); throws on a refusal. */
export async function loadSlot(api: ApiProcess, slot: string, model: string): Promise<void> {
  const res = await postJson(`${api.url}/api/slots/${slot}/load?wait=true`, { model })
  if (!res.ok) throw new Error(`load ${slot}: ${res.status} ${await res.text()}`)
  await res.arrayBuffer()
}

async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return
  const exited = new Promise((r) => child.once('exit', r))
  child.kill('SIGTERM')
  await exited
}
