/**
 * What the dispatcher is given (`DispatcherOptions`) and what it records of each request
 * (`DispatchRecord`). A leaf: the front door (dispatcher.ts), the in-process caller (call.ts) and the
 * slot and hosted sends all import it, none of them each other.
 */
import type { IncomingMessage, ServerResponse } from 'node:http'
import type { Endpoint, ProviderRoute, SlotManager, SvcError } from '@svc/core'
import type { ModelAllowed } from './model-access'
import type { RequestUnits } from './units'
import type { HostedUpstream } from './upstreams'
import type { Usage } from './usage'

/** What the dispatcher needs of a slot's provider: the request side of the provider contract. */
export type SlotRoute = ProviderRoute

export interface DispatchRecord {
  route: string
  slot: string
  status: number
  outcome: 'ok' | 'client-gone' | 'upstream-died' | 'error'
  /** Request arrival → response finished (s). */
  seconds: number
  /** Upstream request sent → first response byte (s); undefined when no upstream was reached. */
  ttfbSeconds?: number
  /** svc's own time before the upstream request went out: body, validation, resolution, lease (s). */
  overheadSeconds?: number
  /** Request arrival → the slot's lease was asked for (s); undefined for a hosted upstream. */
  leaseAskedSeconds?: number
  /** Lease asked → held (s): the wait in the slot's queue, and for its load when one ran. */
  leaseWaitSeconds?: number
  usage?: Usage
  /** The model that answered (the lease's, or a hosted upstream's ref); absent before resolution. */
  model?: string
  /** What the request asked for beyond tokens (speech characters, images): see `requestUnits`. */
  units?: RequestUnits
}

/**
 * A request as `onStart` sees it: the dispatcher's own per-request object (nothing is made for the
 * hook). `record` is the one `observe` gets at the end, filled in as the request goes on (`model`
 * once a lease is held, `overheadSeconds` once the upstream request went out, `ttfbSeconds` at its
 * first byte).
 */
export interface StartedRequest {
  readonly req: IncomingMessage
  /** The client's response; undefined for a call made inside svc (the Ollama API's). */
  readonly res: ServerResponse | undefined
  readonly requestId: string
  readonly record: DispatchRecord
  /** `performance.now()` when it arrived. */
  readonly started: number
}

/**
 * Per-model presets (`<config>/presets.toml`, docs/models.md "Presets"), as the app's current table
 * answers them; the dispatcher only asks. Both answers are cheap when no preset applies.
 */
export interface RequestPresets {
  /** The name the slots know preset `model`'s engine by (an alias or a ref); undefined: no preset. */
  resolveAlias(model: string): string | undefined
  /**
   * `body` with the request fields for `model` (its preset's, else `*`'s) applied in `endpoint`'s
   * vocabulary, as a new object; undefined when none apply (the client's bytes go on as they came).
   */
  applyRequestFields(
    model: string,
    endpoint: Endpoint,
    body: Record<string, unknown>,
  ): Record<string, unknown> | undefined
}

export interface DispatcherOptions {
  slots: SlotManager
  routeFor(slot: string): SlotRoute
  upstreams: () => readonly HostedUpstream[]
  isKnownModel(id: string): Promise<boolean>
  /** Presets per model: aliases, variants and their request fields. Absent: none. */
  presets?: RequestPresets
  /** Bounded wait for a loading slot (SVC_QUEUE_TIMEOUT). Default 120 s. */
  queueTimeoutMs?: number
  /** Until upstream response headers (model load excluded). Default 600 s. */
  upstreamTimeoutMs?: number
  maxJsonBytes?: number
  maxUploadBytes?: number
  /** Called once per request when it is done; `req` lets the app find what it attached (who asked). */
  observe?: (record: DispatchRecord, req: IncomingMessage) => void
  /**
   * Called once per request once its target is known (body read, `model` resolved to a slot or a
   * hosted upstream), before any wait for a lease: what in-flight views list (`observe` then ends
   * it). `model` is the name the request asked for; `body` the JSON body as it came (undefined for an
   * upload). A request refused before that point never starts, it only ends. Absent: nothing is done.
   */
  onStart?: (request: StartedRequest, model: string | undefined, body: Buffer | undefined) => void
  /**
   * Asked once `model` resolved to a hosted upstream, before its key is used: a refusal answers the
   * request (the app's browser rule: with auth off, no page of another site spends a hosted key).
   */
  refuseHosted?: (req: IncomingMessage) => SvcError | undefined
  /**
   * The model names the caller of `req` may use (a token limited to models; `model-access.ts`), or
   * undefined for every model. Asked once per request, before resolution; absent: nobody is limited.
   */
  allowedModels?: (req: IncomingMessage) => ModelAllowed | undefined
  /**
   * Called with an error that is not an `SvcError` (a bug: answered 500 `internal.error` without
   * its details), so the app can log it with the request id.
   */
  onUnexpected?: (error: unknown, context: { requestId: string; route: string }) => void
}
