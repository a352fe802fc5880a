import type { Capability } from '@svc/core'
import { request } from '../../api/client'
import { useFetch } from '../../hooks/use-fetch'
import { useLive } from '../../store/use-live'

/** An entry of `GET /v1/models` with the fields svc adds (when present). */
export interface V1Model {
  id: string
  owned_by?: string
  /** What it answers; null when svc cannot know (a hosted ref, a remote chat slot): offered for chat. */
  capabilities?: string[] | null
  _svc?: { slot: string | null; model?: string | null; state: string | null; loaded: boolean }
}

/**
 * The model list of `/v1/models` (slot aliases first), for the playground's pickers. Fetched again
 * whenever a slot changes state or model (a load from the page changes what can answer).
 */
export function useV1Models() {
  const slots = useLive((s) => s.slots.map((slot) => `${slot.name}:${slot.state}:${slot.model}`).join())
  return useFetch(async () => {
    const res = await request('/v1/models')
    return ((await res.json()) as { data: V1Model[] }).data
  }, [slots])
}

/**
 * Whether an entry answers now, or is on its way (its slot loading): a hosted ref (no slot), a slot
 * that is ready, serving or idle, or one that is pulling, starting or warming.
 */
export function answersNow(m: V1Model): boolean {
  const svc = m._svc
  if (!svc || svc.loaded) return true
  return svc.state !== null && svc.state !== 'offline' && svc.state !== 'unloading'
}

/**
 * The entries of the list that serve `capability` (the API decides what is listed: issue 39's rule
 * that every list offers only what can run here). Chat takes entries whose capabilities are unknown
 * (null: a hosted ref) or include `chat`, loaded or not (a chat slot loads on the page's Load button
 * or on request); every other kind only entries that answer now.
 */
export function modelsFor(models: readonly V1Model[] | undefined, capability: Capability): V1Model[] {
  return (models ?? []).filter((m) =>
    capability === 'chat'
      ? m.capabilities === null || m.capabilities === undefined || m.capabilities.includes('chat')
      : (m.capabilities?.includes(capability) ?? false) && answersNow(m),
  )
}
