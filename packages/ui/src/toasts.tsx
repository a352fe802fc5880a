import { type ComponentChildren, createContext } from 'preact'
import { useCallback, useContext, useEffect, useMemo, useRef, useState } from 'preact/hooks'

export type ToastKind = 'info' | 'success' | 'error'

export interface Toast {
  id: number
  kind: ToastKind
  message: string
}

export interface ToastApi {
  /** Shows a message; info and success fade after `ms` (default 5 s), errors stay until dismissed. */
  show(kind: ToastKind, message: string, ms?: number): void
  dismiss(id: number): void
}

const ToastContext = createContext<ToastApi | null>(null)

/** The toasts of the page: wraps the app and renders a live region in the corner. */
export function ToastProvider({ children, max = 5 }: { children: ComponentChildren; max?: number }) {
  const [toasts, setToasts] = useState<Toast[]>([])
  const next = useRef(1)
  const timers = useRef(new Map<number, ReturnType<typeof setTimeout>>())
  const dismiss = useCallback((id: number) => {
    clearTimeout(timers.current.get(id))
    timers.current.delete(id)
    setToasts((all) => all.filter((t) => t.id !== id))
  }, [])
  const show = useCallback(
    (kind: ToastKind, message: string, ms = 5_000) => {
      const id = next.current++
      setToasts((all) => [...all, { id, kind, message }].slice(-max))
      if (kind !== 'error')
        timers.current.set(
          id,
          setTimeout(() => dismiss(id), ms),
        )
    },
    [dismiss, max],
  )
  useEffect(
    () => () => {
      for (const t of timers.current.values()) clearTimeout(t)
    },
    [],
  )
  const api = useMemo(() => ({ show, dismiss }), [show, dismiss])
  return (
    <ToastContext.Provider value={api}>
      {children}
      <ToastRegion toasts={toasts} onDismiss={dismiss} />
    </ToastContext.Provider>
  )
}

/** The toast API of the nearest `ToastProvider`. */
export function useToasts(): ToastApi {
  const api = useContext(ToastContext)
  if (!api) throw new Error('useToasts() needs a <ToastProvider> above it')
  return api
}

function ToastRegion({ toasts, onDismiss }: { toasts: Toast[]; onDismiss: (id: number) => void }) {
  return (
    <section class="svc-toasts" aria-label="Notifications" aria-live="polite">
      {toasts.map((t) => (
        <div key={t.id} class="svc-toast" data-kind={t.kind} role={t.kind === 'error' ? 'alert' : 'status'}>
          <span>{t.message}</span>
          <button
            type="button"
            class="svc-toast-close"
            aria-label="Dismiss notification"
            onClick={() => onDismiss(t.id)}
          >
            ×
          </button>
        </div>
      ))}
    </section>
  )
}
