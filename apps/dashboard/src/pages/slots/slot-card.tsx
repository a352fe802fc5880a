import type { SlotLiveMetrics, SlotSnapshot } from '@svc/core'
import { ConfirmDialog, formatDuration, ProgressBar, StateBadge } from '@svc/ui'
import { useEffect, useId, useState } from 'preact/hooks'
import { whyNot } from '../../api/session'
import type { SlotView } from '../../api/types'
import { GuardedButton } from '../../components/guarded-button'
import { useNow } from '../../hooks/use-now'
import { Link } from '../../router'
import { useSession } from '../../session-context'
import type { SlotQueue } from '../../store/live-state'
import { CannotRun } from './cannot-run'
import { sayError } from './error-words'
import { LoadPicker } from './load-picker'
import { SlotConfigForm } from './slot-config-form'
import { extrasOf, runsOn } from './slot-extras'
import { SlotFigures } from './slot-figures'

export interface SlotActions {
  /** Loads `model`; with `backend`, first saves it as the slot's backend (the picker offered it). */
  load(slot: string, model: string, backend?: string): Promise<void>
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
  /** Open the settings dialog at once (`/?settings=<slot>`); `onSettingsClosed` when it closes. */
  settingsOpen?: boolean
  onSettingsClosed?: () => void
}

const LOADING = ['pulling', 'starting', 'warming'] as const
const RUNNING = ['ready', 'serving', 'idle'] as const

/**
 * One slot. Offline it is compact: name, state, where it would run, and the one action that makes
 * sense (Load, or why it cannot run here with the way to change that). Holding a model it shows the
 * model, memory, context size and the last minute. A current error shows with its fix.
 */
export function SlotCard(props: SlotCardProps) {
  const { slot, view, metrics, queue, actions } = props
  const session = useSession()
  const headingId = useId()
  const [dialog, setDialog] = useState<'load' | 'unload' | 'settings' | null>(
    props.settingsOpen ? 'settings' : null,
  )
  useEffect(() => {
    if (props.settingsOpen) setDialog('settings')
  }, [props.settingsOpen])
  // An error the person cleared here (the API clears it on unload too; this hides it at once).
  const [cleared, setCleared] = useState<string | null>(null)
  const busyState = (LOADING as readonly string[]).includes(slot.state)
  const running = (RUNNING as readonly string[]).includes(slot.state)
  const now = useNow(1000, busyState || running || (queue?.depth ?? 0) > 0)
  const denied = whyNot(session, 'mutate')
  const inflight = slot.inflight > 0 || slot.state === 'serving'
  const extras = extrasOf(view, slot)
  const runnable = extras.runnable
  const cannotRun = runnable !== null && !runnable.ok && !running && !busyState
  const lastError = slot.lastError && slot.lastError !== cleared ? slot.lastError : null
  const said = lastError ? sayError(null, lastError) : null
  // A spare slot (`primary-2`): svc opened it beside its parent for a second model, with the
  // parent's settings and no file of its own (the API refuses to save one), and closes it when idle.
  const spareOf = view?.spare_of ?? null
  const close = () => {
    if (dialog === 'settings') props.onSettingsClosed?.()
    setDialog(null)
  }
  const settingsButton = (label: string) => (
    <GuardedButton denied={denied} disabled={!view} onClick={() => setDialog('settings')}>
      {label}
    </GuardedButton>
  )

  return (
    <article
      class="card slot-card"
      aria-labelledby={headingId}
      data-slot={slot.name}
      data-compact={running || busyState ? undefined : ''}
    >
      <header class="card-head">
        <h2 id={headingId}>{slot.name}</h2>
        <StateBadge
          state={slot.state}
          detail={slot.inflight > 0 ? `${slot.inflight} in flight` : undefined}
        />
        {/* The slot's own tools sit in its header, so the actions below stay one row at any width. */}
        <div class="card-tools">
          {spareOf ? null : settingsButton('Settings')}
          <Link class="svc-button" href={`/logs/${slot.name}`} label={`Logs of ${slot.name}`}>
            Logs
          </Link>
        </div>
      </header>
      <p class="runs-on">
        {/* A slot that cannot run here names its engine only: its backend is the problem, not a fact. */}
        {runsOn(
          cannotRun
            ? { provider: slot.provider, backend: null, runtime: null }
            : { ...slot, model: slot.model ?? view?.config.default_model },
        )}
      </p>
      {spareOf ? (
        <p class="spare-of">
          Spare of {spareOf}: a second model beside it, with its settings; it closes when idle.
        </p>
      ) : null}
      {running || busyState ? (
        <SlotFigures slot={slot} extras={extras} metrics={metrics} queue={queue} now={now} />
      ) : null}
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
      {cannotRun ? <CannotRun runnable={runnable} /> : null}
      {said ? (
        <div class="last-error" role="alert">
          <p>
            <strong>Last error:</strong> {said.text}
          </p>
          <div class="actions">
            {said.fix === 'settings' ? settingsButton('Change the settings') : null}
            <GuardedButton
              denied={denied}
              onClick={() =>
                void actions.unload(slot.name).then(
                  () => setCleared(lastError),
                  () => undefined,
                )
              }
            >
              Clear
            </GuardedButton>
          </div>
        </div>
      ) : null}
      <div class="actions slot-actions">
        {cannotRun ? (
          settingsButton('Change the settings…')
        ) : (
          <GuardedButton denied={denied} primary onClick={() => setDialog('load')}>
            {said && !running && !busyState ? 'Load again…' : 'Load…'}
          </GuardedButton>
        )}
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
          backend={slot.backend ?? view?.backend ?? null}
          runnable={runnable}
          defaultModel={view?.config.default_model ?? null}
          onLoad={(model, backend) => actions.load(slot.name, model, backend)}
          onClose={close}
        />
      ) : null}
      {dialog === 'unload' ? (
        <ConfirmDialog
          title={`Unload ${slot.name}?`}
          confirmLabel="Unload"
          danger
          onCancel={close}
          onConfirm={() => {
            close()
            void actions.unload(slot.name)
          }}
        >
          {slot.inflight || 'Some'} request{slot.inflight === 1 ? ' is' : 's are'} in flight. They may finish
          during the grace period; new requests are refused.
        </ConfirmDialog>
      ) : null}
      {dialog === 'settings' && view ? (
        <SlotConfigForm slot={view} onSave={(body) => actions.configure(slot.name, body)} onClose={close} />
      ) : null}
    </article>
  )
}
