/**
 * The steps every inference request takes on its way to a slot, in one place for both doors: a
 * client's `/v1/*` request (dispatcher.ts, send-to-slot.ts) and a request made inside svc (call.ts,
 * the Ollama API's):
 *
 * 1. `targetFor`: the caller's model allowance (a token limited to models), then `model` resolved to
 *    a slot or a hosted upstream;
 * 2. `new SlotRequest(…)`: the slot serves the endpoint; a preset's request fields and the provider's
 *    preparation of the body (`carried`), before any wait, so a body it cannot carry is refused now;
 *    images refused for a model that cannot see them; which replica suits the prompt (`hints`);
 * 3. `lease()`: the slot's lease (a bounded wait while it loads, with loading notices for a stream),
 *    and the image check again for the model the lease really got (a swap may have happened).
 *
 * A `SlotRequest` is also what `acquire` reads (`ref`, `timeoutMs`, `onLoading`, `hints`, `signal`),
 * so a relayed request allocates no more than its lease ask alone did before.
 */
import type { IncomingMessage } from 'node:http'
import { type Lease, type LoadingNotice, type RouteHints, type Slot, SvcError } from '@svc/core'
import type { DispatcherOptions, SlotRoute } from './dispatch-types'
import type { EndpointSpec } from './endpoints'
import { refuseUnallowedModel } from './model-access'
import { presetFields } from './preset-fields'
import { resolveTarget, type Target } from './resolve'
import { routeHintsFor } from './route-hints'
import { refuseImagesWithoutVision } from './vision'

/** What the steps need of the dispatcher: its options and the bounded wait for a loading slot (ms). */
export interface SlotSteps {
  options: DispatcherOptions
  queueTimeoutMs: number
}

/** The request as the steps read it: the model it named and its JSON body (undefined: an upload). */
export interface AskedRequest {
  readonly model: string | undefined
  readonly json: Record<string, unknown> | undefined
}

/** Who asks: the client's request (what the app attached to it) and the signal of its going away. */
export interface Asker {
  readonly req: IncomingMessage
  readonly client: { readonly signal: AbortSignal }
}

/**
 * Step 1: refuses a model the caller may not use (`allowedModels`), then resolves `model`: at once
 * when it can (`resolveTarget`), else a promise. Throws, or rejects with, `SvcError`
 * (`model.forbidden`, `model.not_found`, `model.not_loaded`, `request.invalid`).
 */
export function targetFor(
  options: DispatcherOptions,
  spec: EndpointSpec,
  model: string | undefined,
  req: IncomingMessage,
): Target | Promise<Target> {
  const allowed = options.allowedModels?.(req)
  if (allowed) refuseUnallowedModel(allowed, model, spec.pinnedSlot, options.slots)
  return resolveTarget(model, spec, options)
}

/** Steps 2 and 3 for a request whose target is a slot; the constructor throws the refusals. */
export class SlotRequest {
  readonly slot: Slot
  /** The ref asked for; undefined when the request named the slot. */
  readonly ref: string | undefined
  /** The slot's provider, as the dispatcher sees it (endpoints, paths, translator, body hooks). */
  readonly route: SlotRoute
  /**
   * The JSON body the upstream gets when it is not the client's: a preset's request fields and/or
   * the provider's preparation. Undefined: the client's bytes go on as they came.
   */
  readonly carried: Record<string, unknown> | undefined
  /** Which replica suits the request (a slot with replicas that routes by cache); else undefined. */
  readonly hints: RouteHints | undefined
  readonly timeoutMs: number
  /** Loading notices for a client waiting on a stream; undefined: it just waits. */
  readonly onLoading: ((notice: LoadingNotice) => void) | undefined
  /** The body whose images are checked against the model (a chat to a local slot); else undefined. */
  private readonly seeing: Record<string, unknown> | undefined
  private readonly steps: SlotSteps
  private readonly asker: Asker

  constructor(
    steps: SlotSteps,
    target: Extract<Target, { kind: 'slot' }>,
    spec: EndpointSpec,
    request: AskedRequest,
    asker: Asker,
    onLoading: ((notice: LoadingNotice) => void) | undefined,
  ) {
    const { options } = steps
    const slot = target.slot
    this.slot = slot
    this.ref = target.ref
    this.steps = steps
    this.asker = asker
    this.timeoutMs = steps.queueTimeoutMs
    this.onLoading = onLoading
    const route = options.routeFor(slot.name)
    this.route = route
    if (!route.endpoints.includes(spec.endpoint) && !route.translate?.endpoints.includes(spec.endpoint)) {
      throw new SvcError('request.invalid', `slot "${slot.name}" does not serve ${spec.endpoint}`, {
        param: 'model',
      })
    }
    const json = request.json
    // Images for a model that cannot see them: refused before waiting on a load, and again in
    // `lease()` for the model the lease really got. A remote slot's upstream loads its own files (a
    // projector or not): svc cannot tell, the remote judges.
    const config = options.slots.config(slot.name)
    this.seeing = spec.endpoint === 'chat' && json && config.runtime !== 'remote' ? json : undefined
    // A preset's request fields (for what the request named, or what the slot it named holds), then
    // the provider's own preparation of the body, before any wait: a body it cannot carry is refused now.
    const asked = target.ref === undefined ? slot.currentModel()?.id : request.model
    const fielded = presetFields(options.presets, asked, spec.endpoint, json)
    const prepared = fielded ?? json
    this.carried = (prepared && route.prepareBody?.(spec.endpoint, prepared)) ?? fielded
    const planned = slot.currentModel()
    if (this.seeing && planned) refuseImagesWithoutVision(this.seeing, planned, slot.name)
    this.hints = routeHintsFor(config, spec.endpoint, this.carried ?? json, asker.req)
  }

  /** Read by `acquire` only when it has to wait: an AbortSignal costs more than the rest of a hop. */
  get signal(): AbortSignal {
    return this.asker.client.signal
  }

  /**
   * The lease: at once when the slot is ready, else after a bounded wait (503 `slot.unavailable`),
   * then the image check for the model it got (400 `request.invalid`, the lease given back).
   */
  lease(): Promise<Lease> {
    const leasing = this.steps.options.slots.acquire(this.slot.name, this)
    // Only a chat with images to check waits on a second promise: the hop's requests take the lease as is.
    const seeing = this.seeing
    if (!seeing) return leasing
    return leasing.then((lease) => {
      try {
        refuseImagesWithoutVision(seeing, lease.model, this.slot.name)
      } catch (error) {
        lease.release()
        throw error
      }
      return lease
    })
  }

  /** Another lease on the same slot, for any model it holds (the next replica after one failed). */
  another(): Promise<Lease> {
    return this.steps.options.slots.acquire(this.slot.name, {
      timeoutMs: this.timeoutMs,
      signal: this.signal,
      ...(this.hints ? { hints: this.hints } : {}),
    })
  }
}
