import type { ComponentChildren } from 'preact'
import { useEffect, useId, useRef } from 'preact/hooks'

export interface ModalProps {
  title: string
  /** Esc, the close button or a click on the backdrop. */
  onDismiss: () => void
  children: ComponentChildren
  /** Buttons at the bottom. */
  actions?: ComponentChildren
}

/**
 * A modal on the native `<dialog>` (`showModal`): the browser traps focus, makes the page behind it
 * inert and restores focus on close. Mounted = open; the parent unmounts it to close, so nothing it
 * showed stays in the DOM.
 */
export function Modal({ title, onDismiss, children, actions }: ModalProps) {
  const ref = useRef<HTMLDialogElement>(null)
  const titleId = useId()
  const dismiss = useRef(onDismiss)
  dismiss.current = onDismiss
  useEffect(() => {
    const dialog = ref.current
    if (!dialog) return
    if (!dialog.open) dialog.showModal()
    const onCancel = (event: Event) => {
      event.preventDefault() // the parent decides (it unmounts us)
      dismiss.current()
    }
    dialog.addEventListener('cancel', onCancel)
    return () => {
      dialog.removeEventListener('cancel', onCancel)
      if (dialog.open) dialog.close()
    }
  }, [])
  // Esc is the dialog's own `cancel` event; the click handler only catches clicks on the backdrop.
  return (
    // biome-ignore lint/a11y/useKeyWithClickEvents: Esc is handled by the cancel event
    <dialog
      ref={ref}
      class="svc-modal"
      aria-labelledby={titleId}
      onClick={(event) => {
        if (event.target === ref.current) dismiss.current() // the backdrop
      }}
    >
      <div class="svc-modal-body">
        <h2 id={titleId} class="svc-modal-title">
          {title}
        </h2>
        {children}
        {actions ? <div class="svc-modal-actions">{actions}</div> : null}
      </div>
    </dialog>
  )
}
