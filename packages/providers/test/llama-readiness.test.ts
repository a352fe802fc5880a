/**
 * The real llama-server under the process runtime: its own log lines end `starting` and `warming`
 * (LLAMA_SERVER_LINES), so a swap does not wait for a poll; and a model it cannot load still fails
 * the load with the engine's reason, never a hang on a line that does not come.
 */
import { mkdtemp, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { type ModelEntry, systemClock, warmUp } from '@svc/core'
import { requireLlamaServer, writeTinyGguf } from '@svc/testing'
import { describe, expect, it } from 'vitest'
import { httpOk } from '../src/contract'
import { createLlmProvider, LLAMA_SERVER_LINES } from '../src/llm/llm-provider'
import { createProcessRuntime } from '../src/runtimes/process'

const binary = requireLlamaServer()
const provider = createLlmProvider()

async function start(path: string) {
  const stateDir = await mkdtemp(join(tmpdir(), 'svc-llama-ready-'))
  const runtime = createProcessRuntime({ stateDir, env: { ...process.env, SVC_LLAMA_SERVER: binary } })
  const model: ModelEntry = { id: 'tiny', format: 'gguf', provider: 'llm', source: 'local', path }
  const args = ['-c', '512', '--threads', '1']
  const signal = new AbortController().signal
  return runtime.start({ slot: 'primary', provider, model, backend: 'cpu', args, signal })
}

describe.skipIf(!binary)('llama-server readiness from its own log', () => {
  it('says it is ready with its "model loaded" line, and /health answers 200 by then', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'svc-llama-ready-model-'))
    await writeTinyGguf(join(dir, 'tiny.gguf'), { role: 'chat', seed: 1 })
    const handle = await start(join(dir, 'tiny.gguf'))
    try {
      expect(handle.saysReady).toBeDefined()
      // The runtime watches the log (inotify): the line is seen as it is written, not at a poll.
      await Promise.race([
        handle.saysReady,
        new Promise((_, reject) => setTimeout(() => reject(new Error('no "model loaded" line')), 15_000)),
      ])
      expect(handle.logs().some((l) => LLAMA_SERVER_LINES.ready.test(l))).toBe(true)
      expect(handle.logs().some((l) => LLAMA_SERVER_LINES.listening.test(l))).toBe(true)
      expect(await httpOk(handle.base, '/health', AbortSignal.timeout(2_000))).toBe(true)
    } finally {
      await handle.stop(5_000)
    }
  })

  it('fails the load of a corrupt GGUF with the engine’s last words, not a hang', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'svc-llama-ready-bad-'))
    const bad = join(dir, 'broken.gguf')
    await writeFile(bad, Buffer.concat([Buffer.from('GGUF'), Buffer.alloc(4096, 0x7f)]))
    const began = Date.now()
    const handle = await start(bad)
    const warming = warmUp({
      driver: { warmupTimeoutMs: 60_000, probe: (h, s) => provider.healthProbe(h.base, s) },
      clock: systemClock,
      handle,
      signal: new AbortController().signal,
      intervalMs: 200,
    })
    await expect(warming).rejects.toThrow(/exited while warming: llama-server exited with code 1/)
    expect(Date.now() - began).toBeLessThan(15_000)
  })
})
