import './slots.css'
import { useToasts } from '@svc/ui'
import { useEffect, useState } from 'preact/hooks'
import { api, ok, send } from '../../api/client'
import { whyNot } from '../../api/session'
import type { SlotView } from '../../api/types'
import { GuardedButton } from '../../components/guarded-button'
import { Notice } from '../../components/notice'
import { Page } from '../../components/page'
import { useFetch } from '../../hooks/use-fetch'
import { useSession } from '../../session-context'
import { useLive } from '../../store/use-live'
import { stripCommand } from './error-words'
import { type SlotActions, SlotCard } from './slot-card'
import { configBody, initial, SlotConfigForm } from './slot-config-form'

/** `?settings=<slot>` (a link from another page, e.g. a context-size error): that slot's settings open. */
function settingsParam(): string | null {
  return new URLSearchParams(location.search).get('settings')
}

/** running / loading / offline: the views refetch when a slot moves between these (memory, errors). */
function phase(state: string): string {
  if (['ready', 'serving', 'idle'].includes(state)) return 'r'
  return state === 'offline' ? 'o' : 'l'
}

/** The home page: a card per slot (built-in and custom), live; create a custom slot. */
export function SlotsPage() {
  const session = useSession()
  const toasts = useToasts()
  const slots = useLive((s) => s.slots)
  const metrics = useLive((s) => s.metrics)
  const queues = useLive((s) => s.queues)
  const generation = useLive((s) => s.generation)
  const connection = useLive((s) => s.connection)
  const [creating, setCreating] = useState(false)
  const [settingsOf, setSettingsOf] = useState(settingsParam)
  useEffect(() => {
    const update = () => setSettingsOf(settingsParam())
    addEventListener('popstate', update)
    return () => removeEventListener('popstate', update)
  }, [])
  const names = slots.map((s) => `${s.name}:${phase(s.state)}`).join(',')
  // Config, memory, context size, whether it runs here (and metrics before the first slot.metrics
  // event) come from GET /api/slots; refetched after every snapshot, whenever the set of slots
  // changes and whenever a slot starts or stops running. A slot created here shows from it until the
  // next snapshot lists it.
  const views = useFetch(() => ok(api.api.slots.$get()), [generation, names])
  const viewOf = (name: string): SlotView | undefined => views.data?.slots.find((s) => s.name === name)
  const denied = whyNot(session, 'mutate')

  const run = async (what: string, call: () => Promise<unknown>) => {
    try {
      await call()
    } catch (e) {
      toasts.show('error', `${what}: ${stripCommand((e as Error).message)}`)
      throw e
    }
  }
  const actions: SlotActions = {
    // No "Loading…" toast: the card shows the load live (pulling, starting, warming), and a failure
    // shows in the picker or on the card with its fix, never in a toast over the buttons.
    load: async (slot, model, backend) => {
      const view = viewOf(slot)
      if (backend !== undefined && view) {
        await send('PUT', api.api.slots[':slot'].$url({ param: { slot } }), {
          ...configBody(initial(view), false),
          backend,
        })
        views.reload()
      }
      await send('POST', api.api.slots[':slot'].load.$url({ param: { slot } }), { model })
    },
    unload: (slot) =>
      run(`Unloading ${slot} failed`, () =>
        send('POST', api.api.slots[':slot'].unload.$url({ param: { slot } })),
      ).catch(() => undefined),
    reload: (slot, model) =>
      run(`Reloading ${slot} failed`, async () => {
        const unload = api.api.slots[':slot'].unload.$url({ param: { slot } })
        unload.search = '?wait=true'
        await send('POST', unload)
        await send('POST', api.api.slots[':slot'].load.$url({ param: { slot } }), { model })
      }).catch(() => undefined),
    configure: async (slot, body) => {
      await send('PUT', api.api.slots[':slot'].$url({ param: { slot } }), body)
      toasts.show('success', `Saved the settings of ${slot}`)
      views.reload()
    },
  }

  return (
    <Page
      title="Slots"
      tools={
        <GuardedButton denied={denied} onClick={() => setCreating(true)}>
          New custom slot
        </GuardedButton>
      }
    >
      <Notice text={denied} />
      {connection !== 'open' && slots.length === 0 ? (
        <p class="loading">Waiting for the live state…</p>
      ) : null}
      <div class="cards">
        {[...slots, ...(views.data?.slots ?? []).filter((v) => !slots.some((s) => s.name === v.name))].map(
          (slot) => (
            <SlotCard
              key={slot.name}
              slot={slot}
              view={viewOf(slot.name)}
              metrics={metrics[slot.name] ?? viewOf(slot.name)?.metrics ?? undefined}
              queue={queues[slot.name]}
              actions={actions}
              settingsOpen={settingsOf === slot.name}
              onSettingsClosed={() => {
                setSettingsOf(null)
                history.replaceState(null, '', '/')
              }}
            />
          ),
        )}
      </div>
      {creating ? (
        <SlotConfigForm
          onClose={() => setCreating(false)}
          onSave={async (body) => {
            const created = await send<SlotView>('POST', api.api.slots.$url(), body)
            toasts.show('success', `Created slot ${created.name}`)
            views.reload()
          }}
        />
      ) : null}
    </Page>
  )
}
