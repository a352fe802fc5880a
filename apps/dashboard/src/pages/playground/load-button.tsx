import { useState } from 'preact/hooks'
import { api, ok, send } from '../../api/client'
import { whyNot } from '../../api/session'
import type { SlotView } from '../../api/types'
import { GuardedButton } from '../../components/guarded-button'
import { useSession } from '../../session-context'
import { useLive } from '../../store/use-live'
import { LoadPicker } from '../slots/load-picker'
import { describeFailure, failureOf } from './problem'

export interface LoadButtonProps {
  /** The slot to load. */
  slot: string
  /** What to load; absent: the slot's default model, or (without one) the load picker. */
  model?: string | undefined
  /** After the slot is ready. */
  onLoaded?: () => void
}

/**
 * The fix for "this slot holds no model", right where the failure shows: Load loads the given model,
 * else the slot's default, else opens the same picker as the Slots page; it waits until the slot is
 * ready, showing its state live. Disabled with the reason for a token that may not load.
 */
export function LoadButton({ slot, model, onLoaded }: LoadButtonProps) {
  const session = useSession()
  const state = useLive((s) => s.slots.find((x) => x.name === slot)?.state ?? null)
  const [busy, setBusy] = useState(false)
  const [error, setError] = useState<string | null>(null)
  const [picking, setPicking] = useState<SlotView | null>(null)

  const load = async (ref: string | undefined) => {
    const url = api.api.slots[':slot'].load.$url({ param: { slot } })
    url.search = '?wait=true'
    await send('POST', url, ref ? { model: ref } : {})
    onLoaded?.()
  }
  const start = async () => {
    setError(null)
    setBusy(true)
    try {
      if (model) await load(model)
      else {
        const view = await ok(api.api.slots[':slot'].$get({ param: { slot } }))
        if (view.config.default_model) await load(undefined)
        else setPicking(view)
      }
    } catch (e) {
      setError(describeFailure(failureOf(e), slot).text)
    } finally {
      setBusy(false)
    }
  }
  return (
    <>
      <span class="actions">
        <GuardedButton
          primary
          denied={whyNot(session, 'mutate')}
          disabled={busy}
          aria-label={`Load ${model ?? slot}`}
          onClick={() => void start()}
        >
          {busy ? 'Loading…' : `Load ${model ?? slot}`}
        </GuardedButton>
        {busy && state ? (
          <span role="status" class="hint">
            {slot}: {state}
          </span>
        ) : null}
      </span>
      {error ? <span class="field-error">{error}</span> : null}
      {picking ? (
        <LoadPicker
          slot={slot}
          provider={picking.provider}
          role={picking.config.role}
          onLoad={async (ref) => {
            setBusy(true)
            try {
              await load(ref)
            } finally {
              setBusy(false)
            }
          }}
          onClose={() => setPicking(null)}
        />
      ) : null}
    </>
  )
}
