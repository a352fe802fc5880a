import { ConfirmDialog, CopyOnceDialog, Select, useToasts } from '@svc/ui'
import { useId, useState } from 'preact/hooks'
import { ApiError, api, ok } from '../../api/client'
import type { TokenRow } from '../../api/types'
import { DataTable } from '../../components/data-table'
import { described, Field } from '../../components/field'
import { useFetch } from '../../hooks/use-fetch'
import { type LimitDraft, LimitFields, LimitsDialog, limitsOf, limitsText, NO_LIMITS } from './token-limits'

const SCOPES = ['v1-only', 'read-only', 'all', 'admin'] as const

function when(iso: string | null): string {
  return iso ? new Date(iso).toLocaleString() : 'never'
}

/**
 * Tokens (admin only): the list (never a secret or a hash), create (the value is shown once in a
 * copy-once dialog and dropped from memory when it closes), revoke (asks first). On a phone the list
 * is a card per token (content.css), so Limits… and Revoke are on screen without scrolling sideways.
 */
export function TokensSection() {
  const toasts = useToasts()
  const tokens = useFetch(() => ok(api.api.auth.tokens.$get()), [])
  const id = useId()
  const [label, setLabel] = useState('')
  const [scope, setScope] = useState<(typeof SCOPES)[number]>('v1-only')
  const [labelError, setLabelError] = useState<string | null>(null)
  const [created, setCreated] = useState<{ token: string; warning: string; label: string } | null>(null)
  const [revoking, setRevoking] = useState<TokenRow | null>(null)
  const [limits, setLimits] = useState<LimitDraft>(NO_LIMITS)
  const [models, setModels] = useState('')
  const [modelsError, setModelsError] = useState<string | null>(null)
  const [limitError, setLimitError] = useState<{ param: string; message: string } | null>(null)
  const [editing, setEditing] = useState<TokenRow | null>(null)

  return (
    <section aria-labelledby={`${id}-title`} class="card">
      <h2 id={`${id}-title`}>Tokens</h2>
      <form
        class="form-row"
        onSubmit={async (e) => {
          e.preventDefault()
          setLabelError(null)
          setLimitError(null)
          setModelsError(null)
          try {
            const quota = limitsOf(limits)
            // Comma-separated globs; empty: every model (docs/auth.md#tokens-limited-to-models).
            const only = models
              .split(',')
              .map((m) => m.trim())
              .filter(Boolean)
            const json = {
              label: label.trim(),
              scope,
              ...(quota ? { limits: quota } : {}),
              ...(only.length > 0 ? { models: only } : {}),
            }
            const made = await ok(api.api.auth.tokens.$post({ json }))
            setCreated({ token: made.token, warning: made.warning, label: made.label })
            setLabel('')
            setLimits(NO_LIMITS)
            setModels('')
            tokens.reload()
          } catch (error) {
            if (error instanceof ApiError && error.param === 'label') setLabelError(error.message)
            else if (error instanceof ApiError && error.param?.startsWith('models'))
              setModelsError(error.message)
            else if (error instanceof ApiError && error.param?.startsWith('limits.'))
              setLimitError({ param: error.param, message: error.message })
            else toasts.show('error', `Creating the token failed: ${(error as Error).message}`)
          }
        }}
      >
        <Field id={`${id}-label`} label="Label" error={labelError}>
          <input
            id={`${id}-label`}
            value={label}
            required
            maxLength={64}
            onInput={(e) => setLabel((e.target as HTMLInputElement).value)}
            {...described(`${id}-label`, labelError)}
          />
        </Field>
        <Field id={`${id}-scope`} label="Scope">
          <Select id={`${id}-scope`} value={scope} choices={SCOPES} onChange={setScope} />
        </Field>
        <Field id={`${id}-models`} label="Models (comma-separated globs, empty = all)" error={modelsError}>
          <input
            id={`${id}-models`}
            value={models}
            placeholder="qwen3-8b*, embed"
            onInput={(e) => setModels((e.target as HTMLInputElement).value)}
            {...described(`${id}-models`, modelsError)}
          />
        </Field>
        <LimitFields draft={limits} onChange={setLimits} error={limitError} />
        <button type="submit" class="svc-button svc-button-primary">
          Create token
        </button>
      </form>
      {tokens.error ? <p role="alert">{tokens.error}</p> : null}
      <DataTable
        caption="Tokens"
        class="tokens"
        columns={[
          'Label',
          'Id',
          'Scope',
          'Models',
          'Limits',
          'Created',
          'Last used',
          <span class="svc-visually-hidden">Actions</span>,
        ]}
      >
        {(tokens.data?.tokens ?? []).map((t) => (
          <tr key={t.id}>
            <th scope="row">{t.label}</th>
            <td data-label="Id">
              <code>{t.id}</code>
            </td>
            <td data-label="Scope">{t.scope}</td>
            <td data-label="Models">{t.models ? t.models.join(', ') : 'all'}</td>
            <td data-label="Limits">{limitsText(t.limits)}</td>
            <td data-label="Created">{when(t.created_at)}</td>
            <td data-label="Last used">{when(t.last_used_at)}</td>
            <td class="row-actions">
              <button
                type="button"
                class="svc-button"
                aria-label={`Limits of ${t.label}`}
                onClick={() => setEditing(t)}
              >
                Limits…
              </button>
              <button
                type="button"
                class="svc-button"
                aria-label={`Revoke ${t.label}`}
                onClick={() => setRevoking(t)}
              >
                Revoke
              </button>
            </td>
          </tr>
        ))}
        {tokens.data && tokens.data.tokens.length === 0 ? (
          <tr>
            <td colSpan={7}>No tokens yet.</td>
          </tr>
        ) : null}
      </DataTable>
      {created ? (
        <CopyOnceDialog
          title={`Token "${created.label}" created`}
          secret={created.token}
          warning={created.warning}
          onClose={() => setCreated(null)}
        />
      ) : null}
      {editing ? (
        <LimitsDialog
          token={editing}
          onClose={() => setEditing(null)}
          onSaved={() => {
            setEditing(null)
            tokens.reload()
          }}
        />
      ) : null}
      {revoking ? (
        <ConfirmDialog
          title={`Revoke ${revoking.label}?`}
          confirmLabel="Revoke"
          danger
          onCancel={() => setRevoking(null)}
          onConfirm={async () => {
            const t = revoking
            setRevoking(null)
            try {
              await ok(api.api.auth.tokens[':id'].$delete({ param: { id: t.id } }))
              toasts.show('success', `Revoked ${t.label}`)
            } catch (e) {
              toasts.show('error', `Revoking failed: ${(e as Error).message}`)
            }
            tokens.reload()
          }}
        >
          Programs using it get 401 on their next request. This cannot be undone.
        </ConfirmDialog>
      ) : null}
    </section>
  )
}
