import { Counter, Gauge } from 'prom-client'
import type { ApiMetrics } from '../metrics'
import type { MemoryReport } from './memory-budget'
import type { SlotSystem } from './slot-system'

/**
 * The series deploy/'s alert rules need beside the slot lifecycle's, all read at scrape time or
 * counted on a rare event, so no request pays for them:
 * - `svc_slot_enabled{slot,on_demand}`: 1 when the slot's config says `enabled = true` (loaded at
 *   start); `on_demand="true"` when svc also loads or unloads it on its own, so offline is normal;
 * - `svc_slot_queue_max{slot}`: the slot's `max_queue` (0: no cap), to compare with `svc_slot_queue_depth`;
 * - `svc_slot_restarts_total{slot}`: restarts the restart policy scheduled after a crash;
 * - `svc_memory_budget_bytes{device}` and `svc_memory_used_bytes{device}`: each device's memory
 *   budget and what the slots on it are charged (as `GET /api/hardware` → `memory`); a device
 *   without a known budget has no budget series.
 */
export function registerAlertMetrics(metrics: ApiMetrics, slots: SlotSystem): void {
  const registers = [metrics.registry]
  const { manager } = slots
  const enabled = new Gauge({
    name: 'svc_slot_enabled',
    help: 'Whether each slot is enabled in its config (1) or not (0); on_demand="true" when svc also loads or unloads it on its own (load on request, unload after idle), so offline is normal for it.',
    labelNames: ['slot', 'on_demand'] as const,
    registers,
    collect() {
      this.reset()
      for (const name of manager.names()) {
        const config = manager.config(name)
        const onDemand = manager.loadsOnRequest(config) || manager.idlePolicy(name).unloadAfterMs > 0
        this.set({ slot: name, on_demand: String(onDemand) }, config.enabled ? 1 : 0)
      }
    },
  })
  void enabled
  const queueMax = new Gauge({
    name: 'svc_slot_queue_max',
    help: 'The cap on requests waiting in each slot queue (max_queue; 0: no cap).',
    labelNames: ['slot'] as const,
    registers,
    collect() {
      this.reset()
      for (const name of manager.names()) this.set({ slot: name }, manager.config(name).demand.maxQueue)
    },
  })
  void queueMax
  // Counted here and exposed for the slots there are now: a spare slot that went leaves no series
  // (one that comes back carries on from its count, so the counter never goes down).
  const restartCounts = new Map<string, number>()
  slots.bus.on('slot.restart', (e) => restartCounts.set(e.slot, (restartCounts.get(e.slot) ?? 0) + 1))
  const restarts = new Counter({
    name: 'svc_slot_restarts_total',
    help: 'Restarts scheduled by the restart policy after an upstream exited unexpectedly, per slot.',
    labelNames: ['slot'] as const,
    registers,
    collect() {
      // Every slot's series exists from the start at 0, so `increase()` sees its first restart.
      this.reset()
      for (const name of manager.names()) this.inc({ slot: name }, restartCounts.get(name) ?? 0)
    },
  })
  void restarts

  // One report per scrape for both gauges: prom-client starts every family's collect in the same
  // turn, so the second finds the first one's report still pending and shares it.
  let pending: Promise<MemoryReport> | undefined
  const report = () => {
    pending ??= slots.memory
      .report()
      .catch(() => ({ devices: [] }))
      .finally(() => {
        pending = undefined
      })
    return pending
  }
  const budget = new Gauge({
    name: 'svc_memory_budget_bytes',
    help: 'The memory budget of each device slots load into (total less the reserve, or SVC_MEMORY_BUDGET_GB).',
    labelNames: ['device'] as const,
    registers,
    async collect() {
      const { devices } = await report()
      this.reset()
      for (const d of devices) if (d.budgetBytes !== null) this.set({ device: d.id }, d.budgetBytes)
    },
  })
  void budget
  const used = new Gauge({
    name: 'svc_memory_used_bytes',
    help: 'Memory charged to the slots on each device (the larger of estimate and measured use).',
    labelNames: ['device'] as const,
    registers,
    async collect() {
      const { devices } = await report()
      this.reset()
      for (const d of devices) this.set({ device: d.id }, d.usedBytes)
    },
  })
  void used
}
