/**
 * The facts `GET /api/slots` and the event stream's `snapshot`/`resync` add to each slot (core's
 * `SlotFacts`): what it serves and whether it can run here (`runnable.ts`, the one place), the memory
 * its model holds (the memory budget's report: measured when known, else the estimate) and the
 * context size its upstream runs with. Read when a client asks, never on an inference request's path.
 */
import type { SlotConfig, SlotFacts, SlotStatus } from '@svc/core'
import type { MemoryReport } from './memory-budget'
import { offerContext, servesOf, slotRunnable } from './runnable'
import type { SlotSystem } from './slot-system'

/** How long one ask of an upstream's `/props` may take before the context size is reported unknown. */
const PROPS_TIMEOUT_MS = 1_000
/** How long an unknown answer of `/props` stands before the upstream is asked again. */
const PROPS_RETRY_MS = 30_000

export interface SlotFactsReader {
  /** The facts of each named slot (every slot when `names` is absent), by name. */
  read(names?: readonly string[]): Promise<Map<string, SlotFacts>>
}

export function createSlotFacts(slots: SlotSystem): SlotFactsReader {
  // llama-server's own n_ctx, asked once per running upstream (keyed by slot, model and base URL).
  // An upstream without /props (a remote of another kind) is asked again at most every RETRY_MS.
  const engineCtx = new Map<string, { key: string; at: number; value: Promise<number | null> }>()
  const askedCtx = (name: string, status: SlotStatus): Promise<number | null> => {
    const base = typeof status.upstream?.base === 'string' ? status.upstream.base : undefined
    if (!base) return Promise.resolve(null)
    const key = `${status.model}|${base}`
    const known = engineCtx.get(name)
    if (known?.key === key) {
      if (Date.now() - known.at < PROPS_RETRY_MS) return known.value
      const stale = known.value
      return stale.then((n) => (n !== null ? n : ask(name, key, base)))
    }
    return ask(name, key, base)
  }
  const ask = (name: string, key: string, base: string) => {
    // The engine's own key: llama-server asks for it on every route but /health, /props included.
    const apiKey = slots.manager.has(name) ? slots.manager.get(name).upstreamAccess()?.apiKey : undefined
    const value = propsContext(base, apiKey)
    engineCtx.set(name, { key, at: Date.now(), value })
    return value
  }

  const contextSize = async (name: string, config: SlotConfig, status: SlotStatus) => {
    if (config.provider !== 'llm' || !status.model || status.state === 'offline') return null
    if (status.state === 'ready' || status.state === 'serving' || status.state === 'idle') {
      const asked = await askedCtx(name, status)
      if (asked !== null) return asked
    }
    // What svc starts it with: a preset's context, else the slot's ctx_size, else a -c in its args.
    const model = slots.manager.has(name) ? slots.manager.get(name).currentModel() : null
    return model?.engine?.ctxSize ?? config.ctxSize ?? ctxFromArgs(config.args) ?? null
  }

  return {
    async read(names) {
      const wanted = names ?? slots.manager.names()
      const [ctx, report] = await Promise.all([
        offerContext(slots),
        slots.memory.report().catch((): MemoryReport => ({ devices: [] })),
      ])
      const out = new Map<string, SlotFacts>()
      await Promise.all(
        wanted.map(async (name) => {
          if (!slots.manager.has(name)) return // a spare slot that went meanwhile
          const config = slots.manager.config(name)
          const status = slots.status(name)
          out.set(name, {
            serves: servesOf(config, endpointsOf(slots, config)),
            runnable: slotRunnable(config, ctx),
            memory: status.state === 'offline' ? null : memoryOf(report, name),
            context_size: await contextSize(name, config, status).catch(() => null),
          })
        }),
      )
      return out
    },
  }
}

function endpointsOf(slots: SlotSystem, config: SlotConfig) {
  return slots.providers.get(config.provider)?.endpoints
}

/** The budget's holder for `slot`: its measured use when known, else its estimate. */
function memoryOf(report: MemoryReport, slot: string): SlotFacts['memory'] {
  for (const device of report.devices) {
    const holder = device.holders.find((h) => h.slot === slot)
    if (!holder) continue
    const measured = holder.usedBytes !== null && holder.usedBytes > 0
    return {
      device: device.id,
      bytes: measured ? holder.usedBytes! : holder.estimateBytes,
      estimated: !measured,
    }
  }
  return null
}

/** The value of the last `-c`/`--ctx-size` in llama-server arguments (llama.cpp takes the last). */
export function ctxFromArgs(args: readonly string[]): number | undefined {
  let found: number | undefined
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!
    const inline = /^--ctx-size=(\d+)$/.exec(arg)
    const value = inline ? inline[1] : arg === '-c' || arg === '--ctx-size' ? args[i + 1] : undefined
    const n = value !== undefined ? Number(value) : Number.NaN
    if (Number.isInteger(n) && n > 0) found = n
  }
  return found
}

/** llama-server's `GET /props` → `default_generation_settings.n_ctx` (the context one request gets). */
async function propsContext(base: string, apiKey: string | undefined): Promise<number | null> {
  try {
    const res = await fetch(new URL('/props', base), {
      headers: apiKey ? { authorization: `Bearer ${apiKey}` } : {},
      signal: AbortSignal.timeout(PROPS_TIMEOUT_MS),
    })
    if (!res.ok) return null
    const props = (await res.json()) as { default_generation_settings?: { n_ctx?: unknown }; n_ctx?: unknown }
    const n = props.default_generation_settings?.n_ctx ?? props.n_ctx
    return typeof n === 'number' && n > 0 ? n : null
  } catch {
    return null
  }
}
