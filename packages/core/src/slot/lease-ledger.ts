/**
 * Request leases, counted per upstream instance.
 *
 * A lease belongs to the upstream instance it was taken on. When that instance goes away (it crashed,
 * or an unload stopped it after the drain grace period) its owner closes it here: its leases stop
 * counting at once, and releasing one later changes nothing — never the count of the instance that
 * replaced it. So the in-flight count can neither go below zero nor hold leases of an upstream that
 * no longer exists.
 *
 * A slot opens one instance per running upstream (today one; several for replicas): the slot's
 * in-flight count is the sum over its open instances, and each instance can be drained on its own.
 * Instances are keyed by identity (the `UpstreamHandle` object), so a restarted upstream is a new
 * instance even when it listens on the same address.
 */

/** An instance's bookkeeping. The release function of each lease holds it directly (no lookup). */
interface Instance {
  inflight: number
  open: boolean
  /** Resolvers of `drained` calls, created only when someone waits. */
  waiters: (() => void)[] | null
}

export interface LeaseLedgerOptions {
  /** Called when the last counted lease over all instances is released (in-flight drops to 0). */
  onIdle?: () => void
}

export class LeaseLedger<K extends object = object> {
  private readonly instances = new Map<K, Instance>()
  private total = 0

  constructor(private readonly options: LeaseLedgerOptions = {}) {}

  /** Starts counting leases on `key` (an upstream that can serve now). Idempotent while open. */
  open(key: K): void {
    if (!this.instances.has(key)) this.instances.set(key, { inflight: 0, open: true, waiters: null })
  }

  /**
   * Forgets `key`: its outstanding leases no longer count, their later release is a no-op, and
   * anyone waiting for it to drain stops waiting. Returns how many leases were outstanding.
   * Does not call `onIdle` (the owner is changing state anyway). Idempotent.
   */
  close(key: K): number {
    const instance = this.instances.get(key)
    if (!instance) return 0
    this.instances.delete(key)
    instance.open = false
    this.total -= instance.inflight
    const outstanding = instance.inflight
    instance.inflight = 0
    wake(instance)
    return outstanding
  }

  isOpen(key: K): boolean {
    return this.instances.has(key)
  }

  /**
   * Takes a lease on the open instance `key` and returns its release function (idempotent). Throws
   * when `key` is not open: handing out a lease on a gone upstream would be a bug in the owner.
   */
  take(key: K): () => void {
    const instance = this.instances.get(key)
    if (!instance) throw new Error('lease ledger: lease taken on an upstream that is not open')
    instance.inflight++
    this.total++
    let released = false
    return () => {
      if (released) return
      released = true
      if (!instance.open) return // its upstream is gone, and its count went with it
      instance.inflight--
      this.total--
      if (instance.inflight === 0) wake(instance)
      if (this.total === 0) this.options.onIdle?.()
    }
  }

  /** Leases out on `key` (0 when it is not open), or over all open instances. */
  inflight(key?: K): number {
    if (key === undefined) return this.total
    return this.instances.get(key)?.inflight ?? 0
  }

  /** Resolves once `key` has no lease out or is closed (at once when that is already so). */
  drained(key: K): Promise<void> {
    const instance = this.instances.get(key)
    if (!instance || instance.inflight === 0) return Promise.resolve()
    return new Promise((resolve) => {
      instance.waiters ??= []
      instance.waiters.push(resolve)
    })
  }
}

function wake(instance: Instance): void {
  const waiters = instance.waiters
  instance.waiters = null
  for (const resolve of waiters ?? []) resolve()
}
