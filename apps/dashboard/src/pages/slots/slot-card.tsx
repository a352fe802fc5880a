import type { SlotLiveMetrics, SlotSnapshot } from '@svc/core'
import { ConfirmDialog, formatDuration, ProgressBar, StateBadge } from '@svc/ui'
import { useId, useState } from 'preact/hooks'
import { whyNot } from '../../api/session'
import type { SlotView } from '../../api/types'
import { Fact } from '../../components/fact'
import { GuardedButton } from '../../components/guarded-button'
import { useNow } from '../../hooks/use-now'
import { Link } from '../../router'
import { useSession } from '../../session-context'
import type { SlotQueue } from '../../store/live-state'
import { figure } from './figure'
import { LoadPicker } from './load-picker'
import { SlotConfigForm } from './slot-config-form'

export interface SlotActions {
  load(slot: string, model: string): Promise<void>
  unload(slot: string): Promise<void>
  reload(slot: string, model: string): Promise<void>
  configure(slot: string, body: Record<string, unknown>): Promise<void>
}

export interface SlotCardProps {
  slot: SlotSnapshot
  /** Config and role from `GET /api/slots` (may lag the live state by a moment). */
  view: SlotView | undefined
  metrics: SlotLiveMetrics | undefined
  /** Requests waiting for this slot (max_concurrent reached, a load or a swap under way). */
  queue?: SlotQueue | undefined
  actions: SlotActions
}

const LOADING = ['pulling', 'starting', 'warming'] as const
const RUNNING = ['ready', 'serving', 'idle'] as const

/** One slot: state, model, where it runs, live figures, last error, progress, and its controls. */
export function SlotCard({ slot, view, metrics, queue, actions }: SlotCardProps) {
  const session = useSession()
  const headingId = useId()
  const [dialog, setDialog] = useState<'load' | 'unload' | 'settings' | null>(null)
  const busyState = (LOADING as readonly string[]).includes(slot.state)
  const running = (RUNNING as readonly string[]).includes(slot.state)
  const waiting = queue?.depth ?? 0
  const now = useNow(1000, busyState || running || waiting > 0)
  const denied = whyNot(session, 'mutate')
  const inflight = slot.inflight > 0 || slot.state === 'serving'
  const uptime = metrics?.readyAt != null && running ? formatDuration((now - metrics.readyAt) / 1000) : '—'

  return (
    <article class="card slot-card" aria-labelledby={headingId} data-slot={slot.name}>
      <header class="card-head">
        <h2 id={headingId}>{slot.name}</h2>
        <StateBadge
          state={slot.state}
          detail={slot.inflight > 0 ? `${slot.inflight} in flight` : undefined}
        />
        {/* The slot's own tools sit in its header, so the actions below stay one row at any width. */}
        <div class="card-tools">
          <GuardedButton denied={denied} disabled={!view} onClick={() => setDialog('settings')}>
            Settings
          </GuardedButton>
          <Link class="svc-button" href={`/logs/${slot.name}`} label={`Logs of ${slot.name}`}>
            Logs
          </Link>
        </div>
      </header>
      <dl class="facts">
        <Fact term="Model">{slot.model ?? 'none'}</Fact>
        <Fact term="Runs on">
          {[slot.provider, slot.backend ?? 'auto', slot.runtime ?? 'auto'].join(' · ')}
        </Fact>
      </dl>
      <dl class="metrics" aria-label={`Live figures of ${slot.name}`}>
        <Fact term="In flight">{slot.inflight}</Fact>
        <Fact term="Requests/min">{metrics?.requestsPerMin ?? 0}</Fact>
        <Fact term="p50 latency">{figure(metrics?.p50Ms, ' ms')}</Fact>
        <Fact term="Tokens/s">{figure(metrics?.tokensPerS)}</Fact>
        <Fact term="Uptime">{uptime}</Fact>
        <Fact term="Restarts">{slot.restarts}</Fact>
        <Fact term="Queued">
          {waiting > 0 && queue?.oldestSince != null
            ? `${waiting} · oldest ${formatDuration(Math.max(0, now - queue.oldestSince) / 1000)}`
            : waiting}
        </Fact>
      </dl>
      {slot.state === 'pulling' && slot.progress ? (
        <ProgressBar
          label={`Pulling ${slot.model ?? ''}`}
          done={slot.progress.done}
          total={slot.progress.total}
        />
      ) : null}
      {slot.state === 'starting' || slot.state === 'warming' ? (
        <p class="warming" role="status">
          {slot.state === 'starting' ? 'Starting the upstream' : 'Warming up: waiting for its health check'} ·{' '}
          {formatDuration((now - slot.since) / 1000)}
        </p>
      ) : null}
      {slot.lastError ? (
        <p class="last-error">
          <strong>Last error:</strong> {slot.lastError}
        </p>
      ) : null}
      <div class="actions slot-actions">
        <GuardedButton denied={denied} primary onClick={() => setDialog('load')}>
          Load…
        </GuardedButton>
        {busyState ? (
          <GuardedButton denied={denied} onClick={() => void actions.unload(slot.name)}>
            Cancel
          </GuardedButton>
        ) : null}
        {running ? (
          <>
            <GuardedButton denied={denied} onClick={() => void actions.reload(slot.name, slot.model!)}>
              Reload
            </GuardedButton>
            <GuardedButton
              denied={denied}
              onClick={() => (inflight ? setDialog('unload') : void actions.unload(slot.name))}
            >
              Unload
            </GuardedButton>
          </>
        ) : null}
      </div>
      {dialog === 'load' ? (
        <LoadPicker
          slot={slot.name}
          provider={slot.provider}
          role={view?.config.role ?? null}
          onLoad={(model) => actions.load(slot.name, model)}
          onClose={() => setDialog(null)}
        />
      ) : null}
      {dialog === 'unload' ? (
        <ConfirmDialog
          title={`Unload ${slot.name}?`}
          confirmLabel="Unload"
          danger
          onCancel={() => setDialog(null)}
          onConfirm={() => {
            setDialog(null)
            void actions.unload(slot.name)
          }}
        >
          {slot.inflight || 'Some'} request{slot.inflight === 1 ? ' is' : 's are'} in flight. They may finish
          during the grace period; new requests are refused.
        </ConfirmDialog>
      ) : null}
      {dialog === 'settings' && view ? (
        <SlotConfigForm
          slot={view}
          onSave={(body) => actions.configure(slot.name, body)}
          onClose={() => setDialog(null)}
        />
      ) : null}
    </article>
  )
}
