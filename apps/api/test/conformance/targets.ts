/**
 * The two targets a conformance table runs against, in one svc process: slot `primary` holds a
 * tiny random-weight GGUF served by the real llama-server (EOS suppressed, so generations run to
 * their token limit unless a stop string ends them), and slot `wrong` is a `remote` slot pointing
 * at the wrong-answering stand-in (`startWrongEngine`). Call `conformanceTargets()` at the top of a
 * test file: it registers the `beforeAll`/`afterAll` that start and stop them.
 */
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import {
  type ApiProcess,
  startApiWithConfig,
  startWrongEngine,
  type WrongEngine,
  writeTinyGguf,
} from '@svc/testing'
import { afterAll, beforeAll } from 'vitest'
import { LIGHT_ARGS, llamaServerAvailable, loadOk, waitForSlot } from '../live'
import type { ConformanceTarget, TargetKind } from './conformance'

/** Both targets once started (`real` only when llama-server is here), and the API and stand-in behind them. */
export interface ConformanceTargets {
  /** Whether the real llama-server is here (in CI its absence fails the run: `llamaServerAvailable`). */
  readonly available: boolean
  readonly real: ConformanceTarget
  readonly wrong: ConformanceTarget
  /** By kind, for `runConformance(table, kind, () => targets.of(kind))`. */
  of(kind: TargetKind): ConformanceTarget
  readonly api: ApiProcess
  readonly engine: WrongEngine
}

/** Slot config of the real target: room for a multi-turn conversation, still light on 2 cores. */
const REAL_ARGS = LIGHT_ARGS.replace('"256"', '"1024"')

export function conformanceTargets(): ConformanceTargets {
  const available = llamaServerAvailable()
  let dir: string | undefined
  let api: ApiProcess | undefined
  let engine: WrongEngine | undefined

  beforeAll(async () => {
    engine = await startWrongEngine()
    dir = await mkdtemp(join(tmpdir(), 'svc-conformance-'))
    const slots: Record<string, string> = {
      wrong: `enabled = true\nprovider = "llm"\nbackend = "cpu"\nruntime = "remote"\nurl = "${engine.url}"\n`,
    }
    if (available) slots.primary = REAL_ARGS
    api = await startApiWithConfig({ slots })
    const loads: Promise<unknown>[] = [waitForSlot(api, 'wrong', (s) => s.state === 'ready', 30_000)]
    if (available) {
      const gguf = await writeTinyGguf(join(dir, 'tiny-chat.gguf'), { role: 'chat', contextLength: 1024 })
      loads.push(loadOk(api, 'primary', gguf.path))
    }
    await Promise.all(loads)
  }, 120_000)

  afterAll(async () => {
    await api?.[Symbol.asyncDispose]()
    await engine?.close()
    if (dir) await rm(dir, { recursive: true, force: true })
  })

  const started = () => {
    if (!api || !engine) throw new Error('the conformance targets did not start (see beforeAll)')
    return { api, engine }
  }
  const targets: ConformanceTargets = {
    available,
    get real(): ConformanceTarget {
      return { kind: 'llama-server', url: started().api.url, model: 'primary' }
    },
    get wrong(): ConformanceTarget {
      const { api, engine } = started()
      return { kind: 'wrong-engine', url: api.url, model: 'wrong', received: () => engine.received() }
    },
    of: (kind) => (kind === 'llama-server' ? targets.real : targets.wrong),
    get api() {
      return started().api
    },
    get engine() {
      return started().engine
    },
  }
  return targets
}
