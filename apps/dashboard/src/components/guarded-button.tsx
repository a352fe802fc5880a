import type { ComponentChildren } from 'preact'

export interface GuardedButtonProps {
  /** Why this caller may not do it (`whyNot(session, …)`): disables the button and becomes its tooltip. */
  denied: string | undefined
  onClick: () => void
  children: ComponentChildren
  /** The page's main action (`svc-button-primary`). */
  primary?: boolean
  /** Disabled for another reason too; `title` then says which. */
  disabled?: boolean
  title?: string | undefined
  'aria-label'?: string
}

/**
 * A button for an action the session may be denied: disabled with the reason as its tooltip, so a
 * read-only user sees the control and why it does not work, instead of a control that is missing.
 */
export function GuardedButton({
  denied,
  onClick,
  children,
  primary,
  disabled,
  title,
  'aria-label': ariaLabel,
}: GuardedButtonProps) {
  return (
    <button
      type="button"
      class={primary ? 'svc-button svc-button-primary' : 'svc-button'}
      disabled={!!denied || disabled}
      title={denied ?? title}
      aria-label={ariaLabel}
      onClick={onClick}
    >
      {children}
    </button>
  )
}
