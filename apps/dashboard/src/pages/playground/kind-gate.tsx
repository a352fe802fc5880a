import type { ComponentChildren } from 'preact'
import { Link } from '../../router'
import { useLive } from '../../store/use-live'
import { LoadButton } from './load-button'
import { KINDS, type Kind, type LiveSlot, runsHere, slotServing } from './slot-facts'
import type { V1Model } from './v1-models'

export interface KindGate {
  /** Whether the tab can send its request now (its submit is disabled otherwise). */
  open: boolean
  /** Why not, with the fix in the page; null when open (or while the model list or the live slots load). */
  notice: ComponentChildren
}

/**
 * Whether a tab's kind of request can run here, and if not why, with the fix in the page: its slot
 * cannot run on this machine (the API's `runnable` reason and a link to the slot's settings), no
 * slot serves it (a link to the Slots page), or nothing listed serves it (`models` empty: its slot
 * holds no model, and Load is beside the words).
 */
export function useKindGate(kind: Kind, models: readonly V1Model[] | undefined): KindGate {
  const slots = useLive((s) => s.slots as LiveSlot[])
  // Before the live store's first snapshot its slot list is empty, not known: /v1/models may answer
  // first, and "no slot serves this" would be a false claim for that moment.
  const slotsKnown = useLive((s) => s.generation > 0)
  const slot = slotServing(slots, kind)
  const noun = KINDS[kind].noun
  if (slot && !runsHere(slot))
    return closed(
      <>
        {cap(noun)} requests cannot run on this machine:{' '}
        {slot.runnable?.reason ?? 'no backend of it runs here'}.{' '}
        <Link href={`/?settings=${slot.name}`}>Open {slot.name}'s settings</Link> to pick another backend or a
        remote server.
      </>,
    )
  if (models === undefined) return { open: false, notice: null }
  if (models.length > 0) return { open: true, notice: null }
  if (!slotsKnown) return { open: false, notice: null }
  if (!slot)
    return closed(
      <>
        No slot here serves {noun} requests. <Link href="/">Add one on the Slots page</Link>.
      </>,
    )
  return closed(
    <>
      No {noun} model is loaded: {slot.name} is {slot.state === 'offline' ? 'empty' : slot.state}.{' '}
      <LoadButton slot={slot.name} />
    </>,
  )
}

function closed(body: ComponentChildren): KindGate {
  return {
    open: false,
    notice: (
      <p class="notice gate" role="note">
        {body}
      </p>
    ),
  }
}

function cap(s: string): string {
  return s.charAt(0).toUpperCase() + s.slice(1)
}
