/**
 * A slot's request queue (docs/self-managing-slots.md): requests wait here for a lease, in arrival
 * order, and `planDemand` (pure) decides who goes next and when the slot swaps to another model.
 * This class only gathers the state, applies each step and asks again on every change: a lease
 * released, a transition of the slot, a request arriving, timing out or going away, a swap window
 * ending. It loads a model only when the slot loads on request (`load_on_request`).
 */

import type { Clock } from '../clock'
import { SvcError } from '../errors'
import type { EventBus } from '../event-bus'
import type { SvcEvents } from '../events'
import type { SlotConfig } from '../slot-config'
import { LEASABLE_STATES } from '../slot-states'
import { asRequestError, busy, notLoaded, timedOut } from './demand-errors'
import { demandNotice, type LoadingNotice } from './demand-notice'
import { type DemandWaiter, planDemand } from './demand-plan'
import type { RouteHints } from './replica-routing'
import type { Lease, Slot, SlotSnapshot } from './slot'

export type { LoadingNotice } from './demand-notice'

export interface DemandAcquireOptions {
  /** The ref asked for; undefined when the request named the slot. */
  ref?: string
  signal?: AbortSignal
  timeoutMs: number
  /** Called when the request starts waiting for a load, and on each step of it. */
  onLoading?(notice: LoadingNotice): void
  /** Which replica suits the request (a slot with replicas that routes by cache). */
  hints?: RouteHints
}

export interface SlotDemandOptions {
  slot: Slot
  config(): SlotConfig
  loadOnRequest(): boolean
  bus: EventBus<SvcEvents>
  clock: Clock
  /** Starts loading `ref` into the slot (memory admission included); rejects with the refusal. */
  load(ref: string): Promise<{ loading: Promise<SlotSnapshot> }>
}

const LEASABLE: readonly string[] = LEASABLE_STATES
/**
 * The reason the queue's own timers are ended with: nobody reads it, and `abort()` without one makes a
 * DOMException (a stack trace) on every granted request.
 */
const ENDED = Symbol('ended')

interface Waiter extends DemandWaiter {
  resolve(lease: Lease): void
  reject(error: unknown): void
  onLoading?: DemandAcquireOptions['onLoading']
  hints?: RouteHints
  /** Ends its time-out and abort watch; made only once the waiter stays queued (see `acquire`). */
  stop?: AbortController
}

export class SlotDemand {
  private readonly waiters: Waiter[] = []
  private nextId = 1
  /** Leases this queue granted and that are not released yet. */
  private active = 0
  /** The ref a load on request is bringing in; null when none is under way. */
  private swapping: string | null = null
  private readySince: number
  private wake: AbortController | null = null
  private planning = false
  private again = false

  private readonly offs: (() => void)[]

  constructor(private readonly o: SlotDemandOptions) {
    this.readySince = o.clock.now()
    this.offs = [
      o.bus.on('slot.transition', (e) => {
        if (e.slot !== o.slot.name) return
        if (e.to === 'ready') this.readySince = e.at
        this.notify()
        this.plan()
      }),
      o.bus.on('slot.progress', (e) => {
        if (e.slot === o.slot.name) this.notify(e.total ? Math.round((e.done / e.total) * 100) : null)
      }),
    ]
  }

  /** Nobody waits, nothing granted is in flight, no load on request under way. */
  get settled(): boolean {
    return this.waiters.length === 0 && this.active === 0 && this.swapping === null
  }

  /** Refuses every waiting request with `error` (a spare slot's first load failed). */
  refuseAll(error: unknown): void {
    for (const w of [...this.waiters]) this.remove(w, asRequestError(error))
  }

  /** Stops following the slot's events (a spare slot that went). */
  close(): void {
    for (const off of [...this.offs, () => this.wake?.abort()]) off()
  }

  /** Requests waiting, and since when the oldest waits (clock ms). */
  queue(): { depth: number; oldestSince: number | null } {
    return { depth: this.waiters.length, oldestSince: this.waiters[0]?.since ?? null }
  }

  /**
   * A lease on the slot for `ref` (or whatever it holds): at once when the plan allows, else after
   * waiting in the queue, bounded by `timeoutMs` (503 `slot.unavailable`) and `signal`. Refused
   * with 429 `slot.busy` when `max_queue` requests already wait, with the load's failure when the
   * model cannot be loaded, and with `model.not_loaded` when nothing is held or coming.
   */
  acquire(options: DemandAcquireOptions): Promise<Lease> {
    options.signal?.throwIfAborted()
    return new Promise<Lease>((resolve, reject) => {
      const waiter: Waiter = {
        id: this.nextId++,
        ref: options.ref ?? null,
        since: this.o.clock.now(),
        resolve,
        reject,
        ...(options.onLoading ? { onLoading: options.onLoading } : {}),
        ...(options.hints ? { hints: options.hints } : {}),
      }
      this.waiters.push(waiter)
      this.plan()
      if (!this.waiters.includes(waiter)) return // granted or refused at once
      // Only a request that waits needs a time-out and an abort watch: most are granted at once, and
      // this keeps their path free of a controller, a timer and the abort's DOMException.
      const stop = new AbortController()
      waiter.stop = stop
      const { maxQueue } = this.o.config().demand
      if (maxQueue > 0 && this.waiters.length > maxQueue) {
        this.remove(waiter, busy(this.o.slot.name, maxQueue))
        return
      }
      this.published()
      this.notifyOne(waiter, null)
      const onAbort = () => this.remove(waiter, options.signal?.reason)
      options.signal?.addEventListener('abort', onAbort, { once: true })
      stop.signal.addEventListener('abort', () => options.signal?.removeEventListener('abort', onAbort))
      this.o.clock.sleep(options.timeoutMs, stop.signal).then(
        () => this.remove(waiter, timedOut(this.o.slot.name, options.timeoutMs)),
        () => undefined,
      )
    })
  }

  private remove(waiter: Waiter, error: unknown): void {
    const i = this.waiters.indexOf(waiter)
    if (i < 0) return
    this.waiters.splice(i, 1)
    waiter.stop?.abort(ENDED)
    waiter.reject(error)
    this.published()
    this.plan() // the one that left may have held up a swap
  }

  /** Asks the plan and applies its step; re-entrant calls (a grant's transition) fold into one. */
  private plan(): void {
    if (this.planning) {
      this.again = true
      return
    }
    this.planning = true
    try {
      do {
        this.again = false
        this.applyOnce()
      } while (this.again)
    } finally {
      this.planning = false
    }
  }

  private applyOnce(): void {
    const slot = this.o.slot
    const snap = slot.snapshot()
    const held = this.swapping ?? slot.targetModel()?.id ?? null
    const ready = this.swapping === null && LEASABLE.includes(snap.state) && snap.model === held
    const now = this.o.clock.now()
    const step = planDemand({
      now,
      held,
      ready,
      readySince: this.readySince,
      inflight: Math.max(this.active, snap.inflight),
      maxConcurrent: this.o.config().demand.maxConcurrent,
      maxSwapWaitMs: this.o.config().demand.maxSwapWaitMs,
      waiters: this.waiters,
    })
    for (const id of step.grant) this.grant(this.waiters.find((w) => w.id === id)!)
    if (held === null && !slot.isPending()) this.refuseUnnamed()
    if (step.swapTo !== null) this.swap(step.swapTo)
    this.wake?.abort(ENDED)
    this.wake = null
    if (step.wakeAt !== null) {
      const wake = new AbortController()
      this.wake = wake
      this.o.clock.sleep(step.wakeAt - now, wake.signal).then(
        () => this.plan(),
        () => undefined,
      )
    }
    if (step.grant.length > 0) this.published()
  }

  private grant(waiter: Waiter): void {
    this.waiters.splice(this.waiters.indexOf(waiter), 1)
    waiter.stop?.abort(ENDED)
    this.active++
    // The slot is leasable (the plan said so): its acquire resolves without waiting.
    this.o.slot.acquire({ timeoutMs: 0, ...(waiter.hints ? { hints: waiter.hints } : {}) }).then(
      (lease) => {
        let released = false
        waiter.resolve({
          base: lease.base,
          model: lease.model,
          ...(lease.apiKey !== undefined ? { apiKey: lease.apiKey } : {}),
          ...(lease.fail ? { fail: (reason: string) => lease.fail?.(reason) } : {}),
          release: () => {
            if (released) return
            released = true
            lease.release()
            this.active--
            this.plan()
          },
        })
      },
      (error) => {
        this.active--
        waiter.reject(error)
        this.plan()
      },
    )
  }

  /** Requests that named the slot while it holds nothing and loads nothing. */
  private refuseUnnamed(): void {
    for (const w of this.waiters.filter((x) => x.ref === null)) {
      const error = new SvcError(
        'model.not_loaded',
        `slot "${this.o.slot.name}" holds no model; load one with: svc slot load ${this.o.slot.name} --model <id>`,
        { param: 'model' },
      )
      this.remove(w, error)
    }
  }

  private swap(ref: string): void {
    if (!this.o.loadOnRequest()) {
      // Only a slot that loads on request swaps by itself; requests for another model are refused.
      for (const w of this.waiters.filter((x) => x.ref === ref))
        this.remove(w, notLoaded(ref, this.o.slot.name))
      return
    }
    this.swapping = ref
    const failed = (error: unknown) => {
      this.swapping = null
      for (const w of this.waiters.filter((x) => x.ref === ref)) this.remove(w, asRequestError(error))
      this.plan()
    }
    this.o.load(ref).then(({ loading }) => {
      this.o.bus.emit('slot.auto', {
        slot: this.o.slot.name,
        action: 'load',
        reason: 'request',
        model: ref,
        at: this.o.clock.now(),
      })
      this.notify()
      loading.then(() => {
        this.swapping = null
        this.plan()
      }, failed)
    }, failed)
  }

  /** Tells each waiter whose model is loading how far it is. */
  private notify(percent: number | null = null): void {
    for (const w of this.waiters) this.notifyOne(w, percent)
  }

  private notifyOne(w: Waiter, percent: number | null): void {
    if (!w.onLoading) return
    const notice = demandNotice(this.o.slot.snapshot(), this.swapping, w.ref, percent)
    if (notice) w.onLoading(notice)
  }

  private published(): void {
    const q = this.queue()
    this.o.bus.emit('slot.queue', { slot: this.o.slot.name, ...q, at: this.o.clock.now() })
  }
}
