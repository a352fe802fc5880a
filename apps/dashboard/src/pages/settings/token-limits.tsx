import { Modal, useToasts } from '@svc/ui'
import { useId, useState } from 'preact/hooks'
import { ApiError, api, send } from '../../api/client'
import type { TokenRow } from '../../api/types'
import { described, Field } from '../../components/field'

export interface Limits {
  requests_per_minute?: number
  tokens_per_minute?: number
  tokens_per_day?: number
}
type LimitName = keyof Limits

const FIELDS: readonly [LimitName, string, string][] = [
  ['requests_per_minute', 'Requests per minute', 'rpm'],
  ['tokens_per_minute', 'Tokens per minute', 'tpm'],
  ['tokens_per_day', 'Tokens per day', 'tpd'],
]

/** The text boxes' values (empty: no limit). */
export type LimitDraft = Record<LimitName, string>

export const NO_LIMITS: LimitDraft = { requests_per_minute: '', tokens_per_minute: '', tokens_per_day: '' }

export function draftOf(limits: Limits | null | undefined): LimitDraft {
  const d = { ...NO_LIMITS }
  for (const [name] of FIELDS) if (limits?.[name] !== undefined) d[name] = String(limits[name])
  return d
}

/** The limits a draft sets (a number for each filled box), or null for none. */
export function limitsOf(draft: LimitDraft): Limits | null {
  const out: Limits = {}
  for (const [name] of FIELDS) if (draft[name].trim() !== '') out[name] = Number(draft[name])
  return Object.keys(out).length ? out : null
}

/** `60 rpm, 200,000 tpd`, or `none`. */
export function limitsText(limits: Limits | null | undefined): string {
  const parts = FIELDS.filter(([n]) => limits?.[n] !== undefined).map(
    ([n, , short]) => `${limits![n]!.toLocaleString('en')} ${short}`,
  )
  return parts.length ? parts.join(', ') : 'none'
}

/** Three optional whole-number boxes; `error` is the server's message for `param` (e.g. `limits.tokens_per_day`). */
export function LimitFields(props: {
  draft: LimitDraft
  onChange: (d: LimitDraft) => void
  error: { param: string; message: string } | null
}) {
  const id = useId()
  return (
    <>
      {FIELDS.map(([name, label]) => {
        const error = props.error?.param === `limits.${name}` ? props.error.message : null
        return (
          <Field key={name} id={`${id}-${name}`} label={label} error={error} hint="empty: no limit">
            <input
              id={`${id}-${name}`}
              type="number"
              min={1}
              step={1}
              inputMode="numeric"
              value={props.draft[name]}
              onInput={(e) =>
                props.onChange({ ...props.draft, [name]: (e.target as HTMLInputElement).value })
              }
              {...described(`${id}-${name}`, error, 'empty: no limit')}
            />
          </Field>
        )
      })}
    </>
  )
}

/** Changes one token's quota (PATCH /api/auth/tokens/:id); it applies from the token's next request. */
export function LimitsDialog(props: { token: TokenRow; onClose: () => void; onSaved: () => void }) {
  const toasts = useToasts()
  const [draft, setDraft] = useState(draftOf(props.token.limits))
  const [error, setError] = useState<{ param: string; message: string } | null>(null)
  const save = async () => {
    try {
      const url = api.api.auth.tokens[':id'].$url({ param: { id: props.token.id } })
      await send('PATCH', url, { limits: limitsOf(draft) })
      toasts.show('success', `Limits of ${props.token.label} saved`)
      props.onSaved()
    } catch (e) {
      if (e instanceof ApiError && e.param) setError({ param: e.param, message: e.message })
      else toasts.show('error', `Saving the limits failed: ${(e as Error).message}`)
    }
  }
  return (
    <Modal
      title={`Limits of ${props.token.label}`}
      onDismiss={props.onClose}
      actions={
        <>
          <button type="button" class="svc-button" onClick={props.onClose}>
            Cancel
          </button>
          <button type="button" class="svc-button svc-button-primary" onClick={save}>
            Save limits
          </button>
        </>
      }
    >
      <p>Over a limit the token gets 429 with Retry-After; per day means per UTC day.</p>
      <LimitFields draft={draft} onChange={setDraft} error={error} />
    </Modal>
  )
}
