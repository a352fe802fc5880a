import { ROUTE_REASONS } from '@svc/core'
import { Counter } from 'prom-client'
import type { ApiMetrics } from '../metrics'
import type { SlotSystem } from './slot-system'

/**
 * How each slot's replicas were chosen (docs/scale-out.md, "Routing"), read from the slots' status
 * at scrape time, so routing a request costs no metric update:
 * `svc_replica_requests_total{slot,replica,reason="prefix|session|least_loaded"}` and
 * `svc_replica_prefix_hits_total{slot,replica}` (requests that found a prefix of their prompt on the
 * replica they went to). `replica` is the replica's id as `/api/slots` shows it (`url-1`, a task id),
 * never its address. A replica's counts start at 0 when it joins the set (a load, a new task).
 */
export function registerReplicaMetrics(metrics: ApiMetrics, slots: SlotSystem): void {
  const registers = [metrics.registry]
  const requests = new Counter({
    name: 'svc_replica_requests_total',
    help: 'Requests sent to each replica of a slot, by why it was chosen (prefix, session, least_loaded).',
    labelNames: ['slot', 'replica', 'reason'] as const,
    registers,
    collect() {
      this.reset()
      for (const s of slots.manager.list())
        for (const r of s.replicas ?? [])
          for (const reason of ROUTE_REASONS)
            this.inc({ slot: s.name, replica: r.id, reason }, r.routed[reason])
    },
  })
  void requests
  const hits = new Counter({
    name: 'svc_replica_prefix_hits_total',
    help: 'Requests that found a prefix of their prompt on the replica they were sent to (by svc’s index).',
    labelNames: ['slot', 'replica'] as const,
    registers,
    collect() {
      this.reset()
      for (const s of slots.manager.list())
        for (const r of s.replicas ?? []) this.inc({ slot: s.name, replica: r.id }, r.prefixHits)
    },
  })
  void hits
}
