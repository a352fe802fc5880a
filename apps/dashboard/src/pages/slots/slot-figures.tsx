import type { SlotLiveMetrics, SlotSnapshot } from '@svc/core'
import { formatBytes, formatDuration } from '@svc/ui'
import { Fact } from '../../components/fact'
import type { SlotQueue } from '../../store/live-state'
import { figure } from './figure'
import { contextText, deviceName, type SlotExtras, seriesOf } from './slot-extras'
import { Sparkline } from './sparkline'

export interface SlotFiguresProps {
  slot: SlotSnapshot
  extras: SlotExtras
  metrics: SlotLiveMetrics | undefined
  queue: SlotQueue | undefined
  /** Epoch ms now (ticks while the slot runs). */
  now: number
}

/**
 * What a slot that holds a model shows: the model, the memory it takes and where, its context size,
 * and the last minute (requests and tokens/s, each a figure with its sparkline). Figures that only
 * matter when they are not zero (in flight, queued, restarts) appear only then.
 */
export function SlotFigures({ slot, extras, metrics, queue, now }: SlotFiguresProps) {
  const series = seriesOf(metrics)
  const waiting = queue?.depth ?? 0
  const seconds = series ? (series.bucket_ms * series.requests.length) / 1000 : 60
  return (
    <>
      <dl class="facts">
        <Fact term="Model">{slot.model ?? 'none'}</Fact>
        {extras.memory ? (
          <Fact term="Memory">
            {formatBytes(extras.memory.bytes)} in {deviceName(extras.memory.device)}
            {extras.memory.estimated ? <span class="muted"> (estimate)</span> : null}
          </Fact>
        ) : null}
        {extras.context_size ? <Fact term="Context">{contextText(extras.context_size)}</Fact> : null}
      </dl>
      <dl class="metrics" aria-label={`Live figures of ${slot.name}`}>
        <div>
          <dt>Requests/min</dt>
          <dd>{metrics?.requestsPerMin ?? 0}</dd>
          {series ? (
            <Sparkline
              values={series.requests}
              label={`Requests per ${series.bucket_ms / 1000} s, last ${seconds} s`}
            />
          ) : null}
        </div>
        <div>
          <dt>Tokens/s</dt>
          <dd>{figure(metrics?.tokensPerS)}</dd>
          {series ? (
            <Sparkline values={series.tokens_per_second} label={`Tokens per second, last ${seconds} s`} />
          ) : null}
        </div>
        <Fact term="p50 latency">{figure(metrics?.p50Ms, ' ms')}</Fact>
        {metrics?.readyAt != null ? (
          <Fact term="Uptime">{formatDuration(Math.max(0, now - metrics.readyAt) / 1000)}</Fact>
        ) : null}
        {slot.inflight > 0 ? <Fact term="In flight">{slot.inflight}</Fact> : null}
        {waiting > 0 ? (
          <Fact term="Queued">
            {queue?.oldestSince != null
              ? `${waiting} · oldest ${formatDuration(Math.max(0, now - queue.oldestSince) / 1000)}`
              : waiting}
          </Fact>
        ) : null}
        {slot.restarts > 0 ? <Fact term="Restarts">{slot.restarts}</Fact> : null}
      </dl>
    </>
  )
}
