/**
 * A small typed, synchronous event bus. Inside `emit`, the type's handlers run in subscription order,
 * then the `onAny` handlers; a handler that throws is reported to `onError` and never stops the
 * others (a broken dashboard stream must not break a slot transition).
 */

export type EventMap = Record<string, unknown>
export type Handler<T> = (payload: T) => void

export interface EventBus<E extends EventMap> {
  /** Subscribes to one event type; returns the function that unsubscribes (idempotent). */
  on<K extends keyof E>(type: K, handler: Handler<E[K]>): () => void
  /** Subscribes to every event; the handler gets the type and the payload. */
  onAny(handler: <K extends keyof E>(type: K, payload: E[K]) => void): () => void
  emit<K extends keyof E>(type: K, payload: E[K]): void
  /** Resolves with the first payload of `type` that satisfies `filter`; rejects when `signal` aborts. */
  once<K extends keyof E>(type: K, filter?: (payload: E[K]) => boolean, signal?: AbortSignal): Promise<E[K]>
}

export interface EventBusOptions {
  onError?: (error: unknown, type: string) => void
}

export function createEventBus<E extends EventMap>(options: EventBusOptions = {}): EventBus<E> {
  const handlers = new Map<keyof E, Set<Handler<never>>>()
  const anyHandlers = new Set<(type: keyof E, payload: unknown) => void>()
  const report =
    options.onError ?? ((error, type) => console.error(`event handler for ${type} failed`, error))

  function on<K extends keyof E>(type: K, handler: Handler<E[K]>): () => void {
    let set = handlers.get(type)
    if (!set) {
      set = new Set()
      handlers.set(type, set)
    }
    set.add(handler as Handler<never>)
    return () => {
      set.delete(handler as Handler<never>)
    }
  }

  return {
    on,
    onAny(handler) {
      const h = handler as (type: keyof E, payload: unknown) => void
      anyHandlers.add(h)
      return () => {
        anyHandlers.delete(h)
      }
    },
    emit(type, payload) {
      for (const h of handlers.get(type) ?? []) {
        try {
          ;(h as Handler<E[typeof type]>)(payload)
        } catch (error) {
          report(error, String(type))
        }
      }
      for (const h of anyHandlers) {
        try {
          h(type, payload)
        } catch (error) {
          report(error, String(type))
        }
      }
    },
    once(type, filter, signal) {
      return new Promise((resolve, reject) => {
        if (signal?.aborted) {
          reject(signal.reason)
          return
        }
        const onAbort = () => {
          off()
          reject(signal?.reason)
        }
        const off = on(type, (payload) => {
          if (filter && !filter(payload)) return
          off()
          signal?.removeEventListener('abort', onAbort)
          resolve(payload)
        })
        signal?.addEventListener('abort', onAbort, { once: true })
      })
    },
  }
}
