/**
 * An in-memory SlotDriver for the slot owner's unit tests: the port's other side, not an upstream.
 * Integration tests (apps/api/test, packages/providers/test) drive real llama-server processes.
 */
import type { Clock } from '../../src/clock'
import type { ModelEntry, PullProgress } from '../../src/models'
import type { SlotDriver, UpstreamExit, UpstreamHandle } from '../../src/slot-driver'

export interface TestHandle extends UpstreamHandle {
  crash(reason?: string): void
  stopped: boolean
}

export interface TestDriver extends SlotDriver {
  started: string[]
  handles: TestHandle[]
  /** Probes that answer false before the first true, per start. */
  probesUntilHealthy: number
  missing: Set<string>
  failStart?: string
  neverHealthy?: boolean
  pullSteps: PullProgress[]
  /** Each pull step takes this long on `clock` (default: no time at all). */
  pullStepMs: number
  clock?: Clock
}

export function createTestDriver(overrides: Partial<TestDriver> = {}): TestDriver {
  const driver: TestDriver = {
    started: [],
    handles: [],
    probesUntilHealthy: 2,
    missing: new Set(),
    pullSteps: [
      { done: 50, total: 100 },
      { done: 100, total: 100 },
    ],
    pullStepMs: 0,
    warmupTimeoutMs: 2_000,
    async needsPull(model: ModelEntry) {
      return driver.missing.has(model.id)
    },
    async pull(model, onProgress, signal) {
      for (const p of driver.pullSteps) {
        signal.throwIfAborted()
        if (driver.clock && driver.pullStepMs > 0) await driver.clock.sleep(driver.pullStepMs, signal)
        else await Promise.resolve()
        onProgress(p)
      }
      driver.missing.delete(model.id)
      return { ...model, path: `/models/${model.id}.gguf` }
    },
    async start(model) {
      if (driver.failStart) throw new Error(driver.failStart)
      driver.started.push(model.id)
      let resolveExit!: (e: UpstreamExit) => void
      const exited = new Promise<UpstreamExit>((r) => {
        resolveExit = r
      })
      let probes = 0
      const handle: TestHandle & { probes: () => number } = {
        base: new URL(`http://127.0.0.1:${10000 + driver.handles.length}`),
        exited,
        stopped: false,
        probes: () => ++probes,
        async stop() {
          handle.stopped = true
          resolveExit({ code: 0, signal: 'SIGTERM', reason: 'stopped' })
        },
        crash(reason = 'exited with code 137') {
          resolveExit({ code: null, signal: 'SIGKILL', reason })
        },
        describe: () => ({ pid: 4242 }),
        logs: () => ['line'],
      }
      driver.handles.push(handle)
      return handle
    },
    async probe(handle) {
      if (driver.neverHealthy) return false
      return (handle as TestHandle & { probes: () => number }).probes() > driver.probesUntilHealthy
    },
    ...overrides,
  }
  return driver
}

export function model(id: string, extra: Partial<ModelEntry> = {}): ModelEntry {
  return { id, format: 'gguf', provider: 'llm', source: 'local', path: `/models/${id}.gguf`, ...extra }
}
