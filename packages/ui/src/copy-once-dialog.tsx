import { useState } from 'preact/hooks'
import { copyText } from './clipboard'
import { Modal } from './modal'

export interface CopyOnceDialogProps {
  title: string
  /** The value shown once (a new token). */
  secret: string
  /** What the user must know: it will not be shown again. */
  warning: string
  /** Called when the user closes the dialog; the parent must then drop `secret` from its state. */
  onClose: () => void
}

/**
 * Shows a secret exactly once: the value in a `<pre>`, a Copy button, the warning. The component
 * keeps no copy of it; once the parent unmounts it (on close), the value is gone from the DOM.
 */
export function CopyOnceDialog({ title, secret, warning, onClose }: CopyOnceDialogProps) {
  const [copied, setCopied] = useState<'yes' | 'failed' | null>(null)
  return (
    <Modal
      title={title}
      onDismiss={onClose}
      actions={
        <>
          <button
            type="button"
            class="svc-button svc-button-primary"
            onClick={async () => setCopied((await copyText(secret)) ? 'yes' : 'failed')}
          >
            {copied === 'yes' ? 'Copied' : 'Copy'}
          </button>
          <button type="button" class="svc-button" onClick={onClose}>
            Close
          </button>
        </>
      }
    >
      <p class="svc-warning" role="note">
        {warning}
      </p>
      <pre class="svc-secret">{secret}</pre>
      <p class="svc-modal-text" role="status">
        {copied === 'yes'
          ? 'Copied to the clipboard.'
          : copied === 'failed'
            ? 'Copying failed: select the text and copy it.'
            : ''}
      </p>
    </Modal>
  )
}
