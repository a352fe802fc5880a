import { request } from '../../api/client'
import { useFetch } from '../../hooks/use-fetch'

/** An entry of `GET /v1/models` with the fields svc adds (when present). */
export interface V1Model {
  id: string
  owned_by?: string
  capabilities?: string[] | null
  _svc?: { slot: string | null; state: string | null; loaded: boolean }
}

/** The model list of `/v1/models` (slot aliases first), for the playground's pickers. */
export function useV1Models() {
  return useFetch(async () => {
    const res = await request('/v1/models')
    return ((await res.json()) as { data: V1Model[] }).data
  }, [])
}
