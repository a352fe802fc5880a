import { ConfirmDialog, formatBytes, Select, useToasts } from '@svc/ui'
import { useId, useMemo, useState } from 'preact/hooks'
import { api, ok } from '../api/client'
import { whyNot } from '../api/session'
import type { ModelRow } from '../api/types'
import { CheckField } from '../components/check-field'
import { DataTable } from '../components/data-table'
import { Field } from '../components/field'
import { Notice } from '../components/notice'
import { Page } from '../components/page'
import { useFetch } from '../hooks/use-fetch'
import { useSession } from '../session-context'
import { useLive } from '../store/use-live'
import { DiskUse } from './models/disk-use'
import { HubLibrary } from './models/hub-library'
import { filterModels, providersOf } from './models/model-filter'
import { ModelRowView } from './models/model-row'

/**
 * The model library: the Hugging Face Hub searched from here (a repo's quants, whether each fits,
 * pull, load, delete), disk use, then the catalogue and the local registry in one table: what each
 * model is, whether it is on disk and which slot holds it. Pull without loading (progress live from `model.pull`), cancel, delete. By
 * default only what this machine can run (plus what is on disk or held); "Show all" adds the rest,
 * each saying why it is not offered here.
 */
export function ModelsPage() {
  const session = useSession()
  const toasts = useToasts()
  const pulls = useLive((s) => s.pulls)
  const slots = useLive((s) => s.slots)
  const [query, setQuery] = useState('')
  const [provider, setProvider] = useState('')
  const [showAll, setShowAll] = useState(false)
  const [deleting, setDeleting] = useState<ModelRow | null>(null)
  const [diskTick, setDiskTick] = useState(0)
  const searchId = useId()
  const providerId = useId()
  // Refetched when a pull finishes and when a slot changes model (the "slot" column).
  const settled = Object.values(pulls)
    .filter((p) => p.status !== 'pulling')
    .map((p) => `${p.model}:${p.status}:${p.at}`)
    .join()
  const held = slots.map((s) => `${s.name}=${s.model}`).join()
  const models = useFetch(() => ok(api.api.models.$get()), [settled, held])
  const denied = whyNot(session, 'mutate')
  const pulling = useMemo(
    () => new Set(Object.values(pulls).flatMap((p) => (p.status === 'pulling' ? [p.model] : []))),
    [pulls],
  )
  const list = models.data?.models ?? []
  const { rows, notOffered } = useMemo(
    () => filterModels(list, { query, provider, showAll, pulling }),
    [list, query, provider, showAll, pulling],
  )
  const providers = useMemo(() => providersOf(list), [list])

  const act = async (what: string, call: () => Promise<unknown>) => {
    try {
      await call()
    } catch (e) {
      toasts.show('error', `${what}: ${(e as Error).message}`)
    }
    models.reload()
    setDiskTick((n) => n + 1)
  }

  return (
    <Page title="Models">
      <Notice text={denied} />
      <DiskUse version={`${settled}|${diskTick}`} />
      <HubLibrary
        denied={denied}
        slots={slots}
        pulls={pulls}
        onChanged={() => {
          models.reload()
          setDiskTick((n) => n + 1)
        }}
      />
      <div class="page-head models-head">
        <h2>Models on this server</h2>
        <Field id={searchId} label="Search" inline>
          <input
            id={searchId}
            type="search"
            value={query}
            onInput={(e) => setQuery((e.target as HTMLInputElement).value)}
          />
        </Field>
        <Field id={providerId} label="Provider" inline>
          <Select
            id={providerId}
            value={provider}
            choices={providers}
            blank="All providers"
            onChange={setProvider}
          />
        </Field>
        <CheckField
          label={`Show all (${notOffered} not offered here)`}
          checked={showAll}
          onChange={setShowAll}
        />
      </div>
      {models.error ? <p role="alert">{models.error}</p> : null}
      <DataTable
        class="models"
        caption={showAll ? 'Catalogued, pulled and local models' : 'Models this machine can run'}
        columns={['Model', 'Provider', 'Role', 'Size', 'On disk', 'Slot', 'Licence', 'Actions']}
      >
        {rows.map((m) => (
          <ModelRowView
            key={m.id}
            model={m}
            pull={pulls[m.id]?.status === 'pulling' ? pulls[m.id] : undefined}
            denied={denied}
            onPull={() =>
              act(`Pull of ${m.id} failed`, () =>
                ok(api.api.models[':id'].pull.$post({ param: { id: encodeURIComponent(m.id) } })),
              )
            }
            onCancel={() =>
              act('Cancel failed', () =>
                ok(api.api.models[':id'].pull.$delete({ param: { id: encodeURIComponent(m.id) } })),
              )
            }
            onDelete={() => setDeleting(m)}
            onForget={() =>
              act(`Forgetting ${m.id} failed`, async () => {
                await ok(api.api.models[':id'].forget.$post({ param: { id: encodeURIComponent(m.id) } }))
                toasts.show('success', `Forgot ${m.id}; its file stays on disk`)
              })
            }
          />
        ))}
      </DataTable>
      {models.data && rows.length === 0 ? (
        <p class="hint">
          {notOffered > 0 && !showAll
            ? `No model this machine runs matches; ${notOffered} not offered here do (Show all).`
            : 'No model matches.'}
        </p>
      ) : null}
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
              await ok(api.api.models[':id'].$delete({ param: { id: encodeURIComponent(id) } }))
              toasts.show('success', `Deleted ${id}`)
            })
          }}
        >
          Its file ({deleting.size !== null ? formatBytes(deleting.size) : 'size unknown'}) is removed from
          disk; it can be pulled again later.
        </ConfirmDialog>
      ) : null}
    </Page>
  )
}
