import { formatBytes, Modal } from '@svc/ui'
import { useEffect, useId, useRef, useState } from 'preact/hooks'
import { ApiError, api, ok } from '../../api/client'
import type { ModelRow, SlotView } from '../../api/types'
import { useFetch } from '../../hooks/use-fetch'
import { sayError } from './error-words'
import { type Runnable, runnableBackends } from './slot-extras'

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
  /** The backend the slot is set to now (null: the picker's choice at load). */
  backend?: string | null
  /** The API's verdict on this slot here (`runnable` of `GET /api/slots`); null when not sent. */
  runnable?: Runnable | null
  /** The slot file's default model: chosen at first. */
  defaultModel?: string | null
  /** `backend`: set when the person picked another backend than the slot's. */
  onLoad: (model: string, backend?: string) => Promise<void>
  onClose: () => void
}

/**
 * Picks what to load: the models this slot's provider can run on this machine (`offered` in
 * `GET /api/models`: badge, size, minimum memory, licence, whether it must be downloaded first), or a
 * path / URL typed in; and, when the slot has more than one, the backends that run here (only those
 * the API's `runnable.backends` says yes to).
 */
export function LoadPicker(props: LoadPickerProps) {
  const { slot, provider, role, runnable, onLoad, onClose } = props
  const models = useFetch(() => ok(api.api.models.$get()), [])
  const [choice, setChoice] = useState(props.defaultModel ?? '')
  const [other, setOther] = useState('')
  const backends = runnableBackends(runnable ?? null)
  const set = props.backend ?? ''
  // '' = automatic (the picker's choice at load). A backend the slot is set to that cannot run here
  // is not offered: the first that can is chosen instead.
  const [backend, setBackend] = useState(
    set === '' || backends.includes(set) || backends.length === 0 ? set : backends[0]!,
  )
  const choices = set === '' ? ['', ...backends] : backends
  const [error, setError] = useState<string | null>(null)
  const [busy, setBusy] = useState(false)
  const otherId = useId()
  const backendId = useId()
  const fitting = (models.data?.models ?? []).filter((m) => fitsSlot(m, { provider, role }))
  const model = other.trim() || choice
  // Dismissed while its load was being answered: the answer must not close whatever dialog the
  // card (or page) shows by then, nor touch this one's state.
  const open = useRef(true)
  useEffect(
    () => () => {
      open.current = false
    },
    [],
  )
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
                // A backend the slot is not set to (its own cannot run here, or another was picked).
                await onLoad(model, backend !== set ? backend : undefined)
                if (open.current) onClose()
              } catch (e) {
                if (open.current)
                  setError(sayError(e instanceof ApiError ? e.code : null, (e as Error).message).text)
              } finally {
                if (open.current) setBusy(false)
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
      {backends.length > 1 || backend !== set ? (
        <div class="field">
          <label for={backendId}>Runs on</label>
          <select
            id={backendId}
            value={backend}
            onChange={(e) => setBackend((e.target as HTMLSelectElement).value)}
          >
            {choices.map((b) => (
              <option key={b} value={b}>
                {b || 'automatic'}
              </option>
            ))}
          </select>
        </div>
      ) : null}
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
