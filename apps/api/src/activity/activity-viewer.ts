/**
 * Who may see which activity entries: an admin (or anyone with auth off) every one; any other caller
 * only the requests made with its own token (or as its own forwarded identity).
 */
import type { Principal } from '@svc/auth'
import type { ActivityCaller } from './activity-types'

/** Whether the viewer may see a request of `caller` (null: nobody named, auth off). */
export type ActivityViewer = (caller: ActivityCaller | null) => boolean

const EVERYTHING: ActivityViewer = () => true

export function activityViewerOf(principal: Principal | undefined): ActivityViewer {
  if (principal === undefined || principal.scope === 'admin') return EVERYTHING
  if (principal.kind === 'token') return (caller) => caller?.token_id === principal.tokenId
  return () => false
}
