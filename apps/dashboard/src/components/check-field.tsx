import { useId } from 'preact/hooks'

export interface CheckFieldProps {
  label: string
  checked: boolean
  onChange: (checked: boolean) => void
  /** Extra classes beside `field-check` (`field` inside a form grid, for the form's label style). */
  class?: string
}

/** A checkbox with its label after it, on one line. */
export function CheckField({ label, checked, onChange, class: extra }: CheckFieldProps) {
  const id = useId()
  return (
    <div class={extra ? `${extra} field-check` : 'field-check'}>
      <input
        id={id}
        type="checkbox"
        checked={checked}
        onChange={(e) => onChange((e.target as HTMLInputElement).checked)}
      />
      <label for={id}>{label}</label>
    </div>
  )
}
