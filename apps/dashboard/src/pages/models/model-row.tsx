import type { ModelPullEvent } from '@svc/core'
import { formatBytes, ProgressBar } from '@svc/ui'
import type { ModelRow } from '../../api/types'
import { GuardedButton } from '../../components/guarded-button'
import { ModelId } from './model-id'

export interface ModelRowProps {
  model: ModelRow
  /** The live pull of this model, while it runs. */
  pull: ModelPullEvent | undefined
  /** Why this caller may not change models (read-only scope), or undefined. */
  denied: string | undefined
  onPull(): void
  onCancel(): void
  onDelete(): void
  /** Forget a local file's ref (the file stays on disk). */
  onForget(): void
}

/**
 * One model: what it is, whether it is on disk, which slot holds it, and what can be done with it
 * here. A model this machine cannot run says why in place of the actions (never an empty cell).
 * `size` is the API's figure for all the model's files (a vision model's projector included).
 * Below 40rem the row is a card: each cell on its own line after its column's name (`data-label`).
 */
export function ModelRowView({
  model: m,
  pull,
  denied,
  onPull,
  onCancel,
  onDelete,
  onForget,
}: ModelRowProps) {
  const deletable = m.present && m.source !== 'local'
  // A local file's ref can be forgotten, file there or not (docs/models.md#forgetting-a-model).
  const forgettable = m.source === 'local'
  return (
    <tr class={m.offered ? undefined : 'not-offered'}>
      <th scope="row">
        <ModelId id={m.id} />
        {m.badge ? <span class="tag">{m.badge}</span> : null}
      </th>
      <td data-label="Provider">{m.provider}</td>
      <td data-label="Role">{m.role ?? '—'}</td>
      <td data-label="Size">{m.size !== null ? formatBytes(m.size) : '—'}</td>
      <td data-label="On disk">
        {pull ? (
          <ProgressBar label={`Pulling ${m.id}`} done={pull.done} total={pull.total} at={pull.at} />
        ) : m.present ? (
          'yes'
        ) : m.needs_pull ? (
          'no'
        ) : (
          'nothing to download'
        )}
      </td>
      <td data-label="Slot">{m.slot ?? '—'}</td>
      <td data-label="Licence">
        {m.license_url ? (
          <a href={m.license_url} target="_blank" rel="noopener noreferrer">
            {m.license ?? 'licence'}
          </a>
        ) : (
          (m.license ?? '—')
        )}
      </td>
      <td class="models-actions">
        {/* A flex box inside the cell: a cell that is itself flex loses its table borders. */}
        <div class="row-actions">
          {pull ? (
            <GuardedButton denied={denied} aria-label={`Cancel the pull of ${m.id}`} onClick={onCancel}>
              Cancel
            </GuardedButton>
          ) : m.needs_pull && m.offered ? (
            <GuardedButton denied={denied} aria-label={`Pull ${m.id}`} onClick={onPull}>
              Pull
            </GuardedButton>
          ) : null}
          {deletable ? (
            <GuardedButton
              denied={denied}
              disabled={m.slot !== null}
              title={m.slot ? `Slot ${m.slot} holds it: unload it first` : undefined}
              aria-label={`Delete ${m.id}`}
              onClick={onDelete}
            >
              Delete
            </GuardedButton>
          ) : null}
          {forgettable ? (
            <GuardedButton
              denied={denied}
              disabled={m.slot !== null}
              title={m.slot ? `Slot ${m.slot} holds it: unload it first` : 'The file stays on disk'}
              aria-label={`Forget ${m.id}`}
              onClick={onForget}
            >
              Forget
            </GuardedButton>
          ) : null}
          {!m.offered ? (
            <span class="why-not">Not offered here: {m.reason ?? 'unknown reason'}</span>
          ) : !pull && !m.needs_pull && !deletable && !forgettable ? (
            <span class="why-not" title="Load it from a slot on the Slots page">
              —
            </span>
          ) : null}
        </div>
      </td>
    </tr>
  )
}
