/**
 * What the API reports about a slot beyond the slot's own snapshot: the last refused edit of its
 * config file. Types only; `apps/api` fills them, the dashboard reads them (`/api/slots`, the
 * `snapshot` and `resync` events, `slot.config`).
 */
import type { SlotSnapshot } from './slot'

/** A refused edit of `<config>/slots/<slot>.toml`, kept until a later edit applies. */
export interface SlotConfigProblem {
  /** The file (absolute for admins; `slots/<slot>.toml` for other scopes). */
  file: string
  /** Dotted path of the offending field, or null for a TOML syntax error. */
  field: string | null
  message: string
}

/** A slot as the API reports it: the core snapshot plus the last refused config edit. */
export interface SlotStatus extends SlotSnapshot {
  configError: SlotConfigProblem | null
  /** The slot's request queue: how many wait, since when the oldest does (epoch ms; null: none). */
  queue: { depth: number; oldestSince: number | null }
}
