import { formatBytes, Modal } from '@svc/ui'
import { useId, useState } from 'preact/hooks'
import { api, ok } from '../../api/client'
import type { ModelRow, SlotView } from '../../api/types'
import { useFetch } from '../../hooks/use-fetch'

/** Whether `model` is something this slot's provider runs (and, for llm slots, in its role). */
export function fitsSlot(
  model: ModelRow,
  slot: Pick<SlotView, 'provider'> & { role: string | null },
): boolean {
  if (model.provider !== slot.provider) return false
  if (slot.provider === 'llm' && slot.role && model.role && model.role !== slot.role) return false
  return model.offered
}

export interface LoadPickerProps {
  slot: string
  provider: string
  role: string | null
  onLoad: (model: string) => Promise<void>
  onClose: () => void
}

/**
 * Picks what to load: the models this slot's provider can run on this machine (badge, size, minimum
 * memory, licence, whether it must be downloaded first), or a path / URL typed in.
 */
export function LoadPicker({ slot, provider, role, onLoad, onClose }: LoadPickerProps) {
  const models = useFetch(() => ok(api.api.models.$get()), [])
  const [choice, setChoice] = useState('')
  const [other, setOther] = useState('')
  const [error, setError] = useState<string | null>(null)
  const [busy, setBusy] = useState(false)
  const otherId = useId()
  const fitting = (models.data?.models ?? []).filter((m) => fitsSlot(m, { provider, role }))
  const model = other.trim() || choice
  return (
    <Modal
      title={`Load a model into ${slot}`}
      onDismiss={onClose}
      actions={
        <>
          <button type="button" class="svc-button" onClick={onClose}>
            Cancel
          </button>
          <button
            type="button"
            class="svc-button svc-button-primary"
            disabled={!model || busy}
            onClick={async () => {
              setBusy(true)
              try {
                await onLoad(model)
                onClose()
              } catch (e) {
                setError((e as Error).message)
              } finally {
                setBusy(false)
              }
            }}
          >
            Load
          </button>
        </>
      }
    >
      {models.error ? <p role="alert">{models.error}</p> : null}
      {!models.data ? <p>Loading models…</p> : null}
      {models.data && fitting.length === 0 ? (
        <p>No catalogued model for the {provider} provider runs here.</p>
      ) : null}
      <fieldset class="picker">
        <legend>Models for the {provider} provider</legend>
        {fitting.map((m) => (
          <label key={m.id} class="picker-row">
            <input
              type="radio"
              name={`load-${slot}`}
              value={m.id}
              checked={choice === m.id && !other}
              onChange={() => {
                setChoice(m.id)
                setOther('')
              }}
            />
            <span class="picker-main">
              <strong>{m.id}</strong>
              {m.badge ? <span class="tag">{m.badge}</span> : null}
              {m.slot ? <span class="tag">in {m.slot}</span> : null}
            </span>
            <span class="picker-facts">
              {m.size !== null ? formatBytes(m.size) : 'size unknown'}
              {m.min_vram_gb !== null ? ` · needs ${m.min_vram_gb} GB` : ''}
              {m.needs_pull ? ' · needs download' : m.present ? ' · on disk' : ''}
              {m.license_url ? (
                <>
                  {' · '}
                  <a href={m.license_url} target="_blank" rel="noopener noreferrer">
                    {m.license ?? 'licence'}
                  </a>
                </>
              ) : null}
            </span>
          </label>
        ))}
      </fieldset>
      <div class="field">
        <label for={otherId}>Or a file path or URL on the server</label>
        <input
          id={otherId}
          value={other}
          placeholder="/models/my-model.gguf or https://…/x.gguf"
          onInput={(e) => setOther((e.target as HTMLInputElement).value)}
        />
      </div>
      {error ? (
        <p class="field-error" role="alert">
          {error}
        </p>
      ) : null}
    </Modal>
  )
}
