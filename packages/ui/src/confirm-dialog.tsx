import type { ComponentChildren } from 'preact'
import { Modal } from './modal'

export interface ConfirmDialogProps {
  title: string
  children: ComponentChildren
  /** The confirming button's text, a verb: `"Unload"`, `"Revoke"`. */
  confirmLabel: string
  /** Style the confirming button as destructive. */
  danger?: boolean
  onConfirm: () => void
  onCancel: () => void
}

/** Asks before something that cannot be undone. Cancel has focus first, so Enter does not destroy. */
export function ConfirmDialog({
  title,
  children,
  confirmLabel,
  danger,
  onConfirm,
  onCancel,
}: ConfirmDialogProps) {
  return (
    <Modal
      title={title}
      onDismiss={onCancel}
      actions={
        <>
          <button type="button" class="svc-button" onClick={onCancel} autofocus>
            Cancel
          </button>
          <button
            type="button"
            class={danger ? 'svc-button svc-button-danger' : 'svc-button svc-button-primary'}
            onClick={onConfirm}
          >
            {confirmLabel}
          </button>
        </>
      }
    >
      <div class="svc-modal-text">{children}</div>
    </Modal>
  )
}
