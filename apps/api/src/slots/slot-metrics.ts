import { SLOT_STATES } from '@svc/core'
import { Counter, Gauge, Histogram } from 'prom-client'
import type { ApiMetrics } from '../metrics'
import { registerAlertMetrics } from './alert-metrics'
import { registerReplicaMetrics } from './replica-metrics'
import type { SlotSystem } from './slot-system'

/**
 * Slot metrics, fed by the same bus events as the dashboard:
 * `svc_slot_state{slot,state}` (1 for the current state), `svc_slot_transitions_total{slot,from,to}`,
 * `svc_slot_load_seconds{slot}` (leaving offline → ready), `svc_slot_inflight{slot}`,
 * `svc_slot_queue_depth{slot}`, `svc_slot_queue_oldest_wait_seconds{slot}` and
 * `svc_slot_auto_total{slot,action,reason}` (loads and unloads svc did on its own), and how each
 * slot's replicas were chosen (`replica-metrics.ts`), and what the alert rules need (`alert-metrics.ts`).
 * `scrapeUpstreams` re-exposes each running llama-server's own `/metrics` with a `slot` label.
 */
export function registerSlotMetrics(
  metrics: ApiMetrics,
  slots: SlotSystem,
): { scrapeUpstreams(): Promise<string> } {
  const registers = [metrics.registry]
  registerReplicaMetrics(metrics, slots)
  registerAlertMetrics(metrics, slots)
  const state = new Gauge({
    name: 'svc_slot_state',
    help: 'Current state of each slot (1 for the current state, 0 otherwise).',
    labelNames: ['slot', 'state'] as const,
    registers,
    collect() {
      this.reset() // a spare slot that went leaves no series behind
      for (const s of slots.manager.list())
        for (const st of SLOT_STATES) this.set({ slot: s.name, state: st }, s.state === st ? 1 : 0)
    },
  })
  void state
  const inflight = new Gauge({
    name: 'svc_slot_inflight',
    help: 'Requests in flight per slot.',
    labelNames: ['slot'] as const,
    registers,
    collect() {
      this.reset()
      for (const s of slots.manager.list()) this.set({ slot: s.name }, s.inflight)
    },
  })
  void inflight
  const queueDepth = new Gauge({
    name: 'svc_slot_queue_depth',
    help: 'Requests waiting in each slot queue (max_concurrent reached, a load or a swap under way).',
    labelNames: ['slot'] as const,
    registers,
    collect() {
      this.reset()
      for (const name of slots.manager.names()) this.set({ slot: name }, slots.manager.queue(name).depth)
    },
  })
  void queueDepth
  const oldestWait = new Gauge({
    name: 'svc_slot_queue_oldest_wait_seconds',
    help: 'How long the oldest request in each slot queue has waited (0: none waits).',
    labelNames: ['slot'] as const,
    registers,
    collect() {
      this.reset()
      const now = Date.now()
      for (const name of slots.manager.names()) {
        const since = slots.manager.queue(name).oldestSince
        this.set({ slot: name }, since === null ? 0 : Math.max(0, now - since) / 1000)
      }
    },
  })
  void oldestWait
  const auto = new Counter({
    name: 'svc_slot_auto_total',
    help: 'Loads and unloads svc did on its own, by reason (request, idle, memory).',
    labelNames: ['slot', 'action', 'reason'] as const,
    registers,
  })
  slots.bus.on('slot.auto', (e) => auto.inc({ slot: e.slot, action: e.action, reason: e.reason }))
  // serving ⇄ idle happen per request: counted as a hot metric (see hot-metrics.ts)
  const transitions = metrics.hot.counter('svc_slot_transitions_total', 'Slot state transitions.', [
    'slot',
    'from',
    'to',
  ])
  const loadSeconds = new Histogram({
    name: 'svc_slot_load_seconds',
    help: 'Time from a load leaving offline to ready (pull included), per slot.',
    labelNames: ['slot'] as const,
    buckets: [0.5, 1, 2, 5, 10, 30, 60, 120, 300, 600, 1800],
    registers,
  })
  const loadStarted = new Map<string, number>()
  slots.bus.on('slot.transition', (e) => {
    transitions.add([e.slot, e.from, e.to])
    if (e.from === 'offline') loadStarted.set(e.slot, e.at)
    if (e.to === 'ready' && loadStarted.has(e.slot)) {
      loadSeconds.observe({ slot: e.slot }, (e.at - loadStarted.get(e.slot)!) / 1000)
      loadStarted.delete(e.slot)
    }
    if (e.to === 'offline') loadStarted.delete(e.slot)
  })

  return {
    async scrapeUpstreams() {
      const parts = await Promise.all(
        slots.manager.list().map(async (s) => {
          const access = slots.manager.has(s.name) ? slots.manager.get(s.name).upstreamAccess() : undefined
          if (!access || s.provider !== 'llm' || !['ready', 'serving', 'idle'].includes(s.state)) return ''
          try {
            // The upstream's own key: llama-server asks for it on /metrics too.
            const headers: Record<string, string> = access.apiKey
              ? { authorization: `Bearer ${access.apiKey}` }
              : {}
            const res = await fetch(new URL('/metrics', access.base), {
              headers,
              signal: AbortSignal.timeout(1_000),
            })
            return res.ok ? withSlotLabel(await res.text(), s.name) : ''
          } catch {
            return ''
          }
        }),
      )
      return mergeExpositions(parts.filter(Boolean))
    },
  }
}

/** Adds `slot="<name>"` to every sample line of Prometheus text; HELP/TYPE lines pass unchanged. */
export function withSlotLabel(text: string, slot: string): string {
  const label = `slot="${slot.replace(/["\\\n]/g, '')}"`
  return text
    .split('\n')
    .map((line) => {
      if (line === '' || line.startsWith('#')) return line
      const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{([^}]*)\})?(\s.*)$/.exec(line)
      if (!m) return line
      const labels = m[3] ? `${label},${m[3]}` : label
      return `${m[1]}{${labels}}${m[4]}`
    })
    .join('\n')
    .replace(/\n*$/, '\n')
}

/**
 * Merges Prometheus texts so each metric family appears once (one HELP/TYPE, then every slot's
 * samples): two llama-servers export the same families, and a repeated TYPE line is invalid.
 */
export function mergeExpositions(texts: string[]): string {
  const families = new Map<string, { meta: string[]; samples: string[] }>()
  for (const text of texts) {
    let current: { meta: string[]; samples: string[] } | undefined
    for (const line of text.split('\n')) {
      const meta = /^# (HELP|TYPE) (\S+)/.exec(line)
      if (meta) {
        const name = meta[2]!
        current = families.get(name) ?? { meta: [], samples: [] }
        if (!families.has(name)) families.set(name, current)
        if (!current.meta.some((m) => m.startsWith(`# ${meta[1]} `))) current.meta.push(line)
        continue
      }
      if (line === '' || line.startsWith('#')) continue
      if (!current) {
        const name = /^[a-zA-Z_:][a-zA-Z0-9_:]*/.exec(line)?.[0] ?? line
        current = families.get(name) ?? { meta: [], samples: [] }
        families.set(name, current)
      }
      current.samples.push(line)
    }
  }
  return (
    [...families.values()].map((f) => [...f.meta, ...f.samples].join('\n')).join('\n') +
    (families.size ? '\n' : '')
  )
}
