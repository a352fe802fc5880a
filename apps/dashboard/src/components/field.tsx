import type { ComponentChildren } from 'preact'

export interface FieldProps {
  id: string
  label: string
  /** The server's message for this field (`param` of a 400), shown next to it. */
  error?: string | null | undefined
  hint?: string
  /** Label and control on one line (a filter in a page head), not stacked. */
  inline?: boolean
  children: ComponentChildren
}

/** A labelled form control with its hint and the server's validation message beside it. */
export function Field({ id, label, error, hint, inline, children }: FieldProps) {
  return (
    <div class={inline ? 'field field-inline' : 'field'} data-invalid={error ? '' : undefined}>
      <label for={id}>{label}</label>
      {children}
      {hint ? (
        <small id={`${id}-hint`} class="hint">
          {hint}
        </small>
      ) : null}
      {error ? (
        <small id={`${id}-error`} class="field-error" role="alert">
          {error}
        </small>
      ) : null}
    </div>
  )
}

/** aria attributes that tie a control to its hint and error. */
export function described(id: string, error?: string | null, hint?: string) {
  const ids = [hint ? `${id}-hint` : '', error ? `${id}-error` : ''].filter(Boolean).join(' ')
  return { 'aria-describedby': ids || undefined, 'aria-invalid': error ? true : undefined }
}
