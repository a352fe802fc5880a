import { ConfirmDialog, formatBytes, ProgressBar, useToasts } from '@svc/ui'
import { useEffect, useId, useMemo, useState } from 'preact/hooks'
import { api, ok } from '../api/client'
import { whyNot } from '../api/session'
import type { ModelRow } from '../api/types'
import { useFetch } from '../hooks/use-fetch'
import { useSession } from '../session-context'
import { useLive } from '../store/use-live'

/**
 * The catalogue and the local registry in one table: what each model is, whether it is on disk and
 * which slot holds it. Pull without loading (progress live from `model.pull`), cancel, delete.
 */
export function ModelsPage() {
  const session = useSession()
  const toasts = useToasts()
  const pulls = useLive((s) => s.pulls)
  const slots = useLive((s) => s.slots)
  const [query, setQuery] = useState('')
  const [deleting, setDeleting] = useState<ModelRow | null>(null)
  const searchId = useId()
  // Refetched when a pull finishes and when a slot changes model (the "slot" column).
  const settled = Object.values(pulls)
    .filter((p) => p.status !== 'pulling')
    .map((p) => `${p.model}:${p.status}:${p.at}`)
    .join()
  const held = slots.map((s) => `${s.name}=${s.model}`).join()
  const models = useFetch(() => ok(api.api.models.$get()), [settled, held])
  useEffect(() => {
    document.title = 'Models · svc'
  }, [])
  const denied = whyNot(session, 'mutate')
  const rows = useMemo(() => {
    const q = query.trim().toLowerCase()
    return (models.data?.models ?? []).filter(
      (m) =>
        !q ||
        [m.id, m.provider, m.role ?? '', m.badge ?? '', m.family ?? ''].some((f) =>
          f.toLowerCase().includes(q),
        ),
    )
  }, [models.data, query])

  const act = async (what: string, call: () => Promise<unknown>) => {
    try {
      await call()
    } catch (e) {
      toasts.show('error', `${what}: ${(e as Error).message}`)
    }
    models.reload()
  }

  return (
    <section aria-labelledby="models-title">
      <div class="page-head">
        <h1 id="models-title">Models</h1>
        <div class="field field-inline">
          <label for={searchId}>Search</label>
          <input
            id={searchId}
            type="search"
            value={query}
            onInput={(e) => setQuery((e.target as HTMLInputElement).value)}
          />
        </div>
      </div>
      {denied ? (
        <p class="notice" role="note">
          {denied}
        </p>
      ) : null}
      {models.error ? <p role="alert">{models.error}</p> : null}
      <div class="table-wrap">
        <table class="models">
          <caption class="svc-visually-hidden">Catalogued, pulled and local models</caption>
          <thead>
            <tr>
              <th scope="col">Model</th>
              <th scope="col">Provider</th>
              <th scope="col">Role</th>
              <th scope="col">Size</th>
              <th scope="col">On disk</th>
              <th scope="col">Slot</th>
              <th scope="col">Licence</th>
              <th scope="col">Actions</th>
            </tr>
          </thead>
          <tbody>
            {rows.map((m) => {
              const pull = pulls[m.id]?.status === 'pulling' ? pulls[m.id] : undefined
              const deletable = m.present && m.source !== 'local'
              return (
                <tr key={m.id}>
                  <th scope="row">
                    {m.id}
                    {m.badge ? <span class="tag">{m.badge}</span> : null}
                    {!m.offered && m.reason ? <small class="hint">Not offered here: {m.reason}</small> : null}
                  </th>
                  <td>{m.provider}</td>
                  <td>{m.role ?? '—'}</td>
                  <td>{m.size !== null ? formatBytes(m.size) : '—'}</td>
                  <td>
                    {pull ? (
                      <ProgressBar
                        label={`Pulling ${m.id}`}
                        done={pull.done}
                        total={pull.total}
                        at={pull.at}
                      />
                    ) : m.present ? (
                      'yes'
                    ) : m.needs_pull ? (
                      'no'
                    ) : (
                      'nothing to download'
                    )}
                  </td>
                  <td>{m.slot ?? '—'}</td>
                  <td>
                    {m.license_url ? (
                      <a href={m.license_url} target="_blank" rel="noopener noreferrer">
                        {m.license ?? 'licence'}
                      </a>
                    ) : (
                      (m.license ?? '—')
                    )}
                  </td>
                  <td class="row-actions">
                    {pull ? (
                      <button
                        type="button"
                        class="svc-button"
                        disabled={!!denied}
                        title={denied}
                        aria-label={`Cancel the pull of ${m.id}`}
                        onClick={() =>
                          act('Cancel failed', () =>
                            ok(api.api.models[':id'].pull.$delete({ param: { id: m.id } })),
                          )
                        }
                      >
                        Cancel
                      </button>
                    ) : m.needs_pull ? (
                      <button
                        type="button"
                        class="svc-button"
                        disabled={!!denied}
                        title={denied}
                        aria-label={`Pull ${m.id}`}
                        onClick={() =>
                          act(`Pull of ${m.id} failed`, () =>
                            ok(api.api.models[':id'].pull.$post({ param: { id: m.id } })),
                          )
                        }
                      >
                        Pull
                      </button>
                    ) : null}
                    {deletable ? (
                      <button
                        type="button"
                        class="svc-button"
                        disabled={!!denied || m.slot !== null}
                        title={denied ?? (m.slot ? `Slot ${m.slot} holds it: unload it first` : undefined)}
                        aria-label={`Delete ${m.id}`}
                        onClick={() => setDeleting(m)}
                      >
                        Delete
                      </button>
                    ) : null}
                  </td>
                </tr>
              )
            })}
          </tbody>
        </table>
      </div>
      {deleting ? (
        <ConfirmDialog
          title={`Delete ${deleting.id}?`}
          confirmLabel="Delete"
          danger
          onCancel={() => setDeleting(null)}
          onConfirm={() => {
            const id = deleting.id
            setDeleting(null)
            void act(`Deleting ${id} failed`, async () => {
              await ok(api.api.models[':id'].$delete({ param: { id } }))
              toasts.show('success', `Deleted ${id}`)
            })
          }}
        >
          Its file ({deleting.size !== null ? formatBytes(deleting.size) : 'size unknown'}) is removed from
          disk; it can be pulled again later.
        </ConfirmDialog>
      ) : null}
    </section>
  )
}
