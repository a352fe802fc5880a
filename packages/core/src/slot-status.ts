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

/** One backend of a slot's provider as a load picker shows it (it offers only those with `ok`). */
export interface SlotBackendVerdict {
  backend: string
  ok: boolean
  /** Why not, for people; null when ok. */
  reason: string | null
}

/**
 * What the API works out about a slot for every face (issue 39: whether it runs here is computed in
 * one place, `slotRunnable` in @svc/providers' picker): what it answers, whether it can run here,
 * what it holds.
 */
export interface SlotFacts {
  /** The requests it answers: `chat`, `embeddings`, `rerank`, `transcription`, `speech`, `images`, or a third party's. */
  serves: string[]
  /** Whether this machine can run the slot as configured (a remote slot: always), and why not. */
  runnable: { ok: boolean; reason: string | null; backends: SlotBackendVerdict[] }
  /**
   * What the loaded model holds, in bytes, on which device (`ram`, `gpu0`, …: the memory budget's
   * ids): measured when known (`estimated: false`), else the load's estimate; null when offline or
   * when no local device holds it (remote, swarm, nothing detected).
   */
  memory: { device: string; bytes: number; estimated: boolean } | null
  /** Tokens of context the loaded upstream runs with (per request slot of llama-server); null when unknown or not an llm slot. */
  context_size: number | null
}

/** A slot as the API reports it: the core snapshot plus the last refused config edit. */
export interface SlotStatus extends SlotSnapshot {
  configError: SlotConfigProblem | null
  /** The slot's request queue: how many wait, since when the oldest does (epoch ms; null: none). */
  queue: { depth: number; oldestSince: number | null }
  /**
   * The slot this one is a spare of (`"primary"` for `primary-2`: opened by svc beside it to hold
   * another model, docs/self-managing-slots.md); null for a named slot. Always set by the API.
   */
  spare_of?: string | null
}
