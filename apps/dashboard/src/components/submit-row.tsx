import type { ComponentChildren } from 'preact'
import type { Submit } from '../hooks/use-submit'

export interface SubmitRowProps {
  /** The form's `useSubmit`: busy disables the button, its error shows under it. */
  submit: Submit
  /** The button's words, and the words while it runs ("Generate", "Generating…"). */
  label: string
  busyLabel: string
  /** Disabled for a reason of the form's own (nothing to send yet). */
  disabled?: boolean
  /** Other buttons, before the submit button. */
  children?: ComponentChildren
}

/** A form's submit button (with what it is doing while busy) and, under it, why the last submit failed. */
export function SubmitRow({ submit, label, busyLabel, disabled, children }: SubmitRowProps) {
  return (
    <>
      <div class="actions">
        {children}
        <button type="submit" class="svc-button svc-button-primary" disabled={submit.busy || disabled}>
          {submit.busy ? busyLabel : label}
        </button>
      </div>
      {submit.error ? <p role="alert">{submit.error}</p> : null}
    </>
  )
}
