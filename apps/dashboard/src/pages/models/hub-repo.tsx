import type { ModelPullEvent, SlotSnapshot } from '@svc/core'
import { ConfirmDialog, formatBytes, ProgressBar, Select, useToasts } from '@svc/ui'
import { useId, useState } from 'preact/hooks'
import { api, send } from '../../api/client'
import type { HubRepoAnswer } from '../../api/types'
import { GuardedButton } from '../../components/guarded-button'
import { useFetch } from '../../hooks/use-fetch'
import { ModelId } from './model-id'

type Quant = HubRepoAnswer['quants'][number]

export interface HubRepoProps {
  /** `owner/repo`. */
  repo: string
  /** Why this caller may not change models (read-only scope), or undefined. */
  denied: string | undefined
  slots: readonly SlotSnapshot[]
  pulls: Readonly<Record<string, ModelPullEvent>>
  /** Something changed on disk (a pull ended, a delete): the page refreshes what it shows. */
  onChanged(): void
}

/**
 * One Hub repo's quants: size, the memory a load takes and whether that fits the chosen slot's
 * budget (and why not); Pull with live progress and Cancel; once on disk, Load into a slot and
 * Delete (refused while a slot holds it, with the reason on the button).
 */
export function HubRepo({ repo, denied, slots, pulls, onChanged }: HubRepoProps) {
  const toasts = useToasts()
  const llmSlots = slots.filter((s) => s.provider === 'llm').map((s) => s.name)
  const [slot, setSlot] = useState('primary')
  const target = llmSlots.includes(slot) ? slot : (llmSlots[0] ?? 'primary')
  const [deleting, setDeleting] = useState<Quant | null>(null)
  const slotId = useId()
  // Refetched when a pull ends (a quant is then on disk) and when the slot to fit changes.
  const settled = Object.values(pulls)
    .filter((p) => p.status !== 'pulling')
    .map((p) => `${p.model}:${p.status}:${p.at}`)
    .join()
  const [owner = '', name = ''] = repo.split('/')
  const info = useFetch(() => {
    const url = api.api.models.hub[':owner'][':repo'].$url({ param: { owner, repo: name } })
    url.search = new URLSearchParams({ slot: target }).toString()
    return send<HubRepoAnswer>('GET', url)
  }, [repo, target, settled])

  const act = async (what: string, call: () => Promise<unknown>) => {
    try {
      await call()
    } catch (e) {
      toasts.show('error', `${what}: ${(e as Error).message}`)
    }
    info.reload()
    onChanged()
  }
  const byId = (id: string) => api.api.models[':id'].$url({ param: { id: encodeURIComponent(id) } })
  const pull = (q: Quant) =>
    act(`Pull of ${q.name} failed`, () => send('POST', api.api.models.pull.$url(), { model: q.name }))
  const cancel = (q: Quant) =>
    act('Cancel failed', () =>
      send('DELETE', api.api.models[':id'].pull.$url({ param: { id: encodeURIComponent(q.name) } })),
    )
  const load = (q: Quant) =>
    act(`Loading ${q.name} into ${target} failed`, async () => {
      await send('POST', api.api.slots[':slot'].load.$url({ param: { slot: target } }), { model: q.name })
      toasts.show('info', `Loading ${q.name} into ${target}…`)
    })

  const r = info.data
  const facts = r
    ? [
        r.architecture,
        r.layers !== null ? `${r.layers} layers` : null,
        r.context_length !== null ? `context ${r.context_length.toLocaleString('en')}` : null,
        r.mmproj.length > 0 ? 'vision (its projector comes along)' : null,
      ].filter(Boolean)
    : []
  return (
    <section class="hub-repo" aria-labelledby={`${slotId}-title`}>
      <div class="hub-repo-head">
        <h2 id={`${slotId}-title`}>{repo}</h2>
        {llmSlots.length > 1 ? (
          <div class="field field-inline">
            <label for={slotId}>For slot</label>
            <Select id={slotId} value={target} choices={llmSlots} onChange={setSlot} />
          </div>
        ) : null}
      </div>
      {info.error ? <p role="alert">{info.error}</p> : null}
      {!r && !info.error ? <p class="loading">Reading {repo} from the Hub…</p> : null}
      {r ? (
        <>
          <p class="hint">
            {facts.join(' · ') || 'No header facts'}
            {r.device && r.device.budget !== null
              ? ` · fits means within ${r.device.label}'s budget of ${formatBytes(r.device.budget)} (slot ${target})`
              : ''}
          </p>
          {r.header_error ? <p class="hint">{r.header_error}</p> : null}
          {r.quants.length === 0 ? <p>This repo has no GGUF file svc could load.</p> : null}
          <ul class="hub-quants" aria-label={`Quants of ${repo}`}>
            {r.quants.map((q) => {
              const running = pulls[q.name]?.status === 'pulling' ? pulls[q.name] : undefined
              const holder = slots.find((s) => s.model === q.name)?.name
              return (
                <li key={q.name} class="hub-quant" aria-label={q.name}>
                  <div class="hub-quant-main">
                    <strong>{q.quant}</strong>
                    <code>
                      <ModelId id={q.name} />
                    </code>
                    <span class="hint">
                      {formatBytes(q.size)}
                      {q.split ? ` in ${q.files.length} parts` : ''} · needs {formatBytes(q.need)}
                      {q.present ? ' · on disk' : ''}
                      {holder ? ` · in ${holder}` : ''}
                    </span>
                    <span class={q.fits === false ? 'hub-fit no' : 'hub-fit'} title={q.reason}>
                      {q.fits === null ? 'Fit unknown' : q.fits ? 'Fits' : 'Does not fit'}
                    </span>
                    {q.fits === false && r.device && r.device.budget !== null ? (
                      // Sizes in this page's units; the server's reckoning is the tooltip.
                      <span class="why-not" title={q.reason}>
                        More than {r.device.label}'s budget of {formatBytes(r.device.budget)}
                      </span>
                    ) : null}
                  </div>
                  <div class="row-actions">
                    {running ? (
                      <>
                        <ProgressBar
                          label={`Pulling ${q.name}`}
                          done={running.done}
                          total={running.total}
                          at={running.at}
                        />
                        <GuardedButton
                          denied={denied}
                          aria-label={`Cancel the pull of ${q.name}`}
                          onClick={() => void cancel(q)}
                        >
                          Cancel
                        </GuardedButton>
                      </>
                    ) : q.present ? (
                      <>
                        <GuardedButton
                          denied={denied}
                          primary
                          disabled={holder === target}
                          title={holder === target ? `${target} holds it already` : undefined}
                          aria-label={`Load ${q.name} into ${target}`}
                          onClick={() => void load(q)}
                        >
                          Load into {target}
                        </GuardedButton>
                        <GuardedButton
                          denied={denied}
                          disabled={holder !== undefined}
                          title={holder ? `Slot ${holder} holds it: unload it first` : undefined}
                          aria-label={`Delete ${q.name}`}
                          onClick={() => setDeleting(q)}
                        >
                          Delete
                        </GuardedButton>
                      </>
                    ) : (
                      <GuardedButton
                        denied={denied}
                        aria-label={`Pull ${q.name}`}
                        onClick={() => void pull(q)}
                      >
                        Pull
                      </GuardedButton>
                    )}
                  </div>
                </li>
              )
            })}
          </ul>
        </>
      ) : null}
      {deleting ? (
        <ConfirmDialog
          title={`Delete ${deleting.name}?`}
          confirmLabel="Delete"
          danger
          onCancel={() => setDeleting(null)}
          onConfirm={() => {
            const q = deleting
            setDeleting(null)
            void act(`Deleting ${q.name} failed`, async () => {
              await send('DELETE', byId(q.name))
              toasts.show('success', `Deleted ${q.name}`)
            })
          }}
        >
          Its files ({formatBytes(deleting.size)}) are removed from disk; it can be pulled again later.
        </ConfirmDialog>
      ) : null}
    </section>
  )
}
