/** One entry of a `Select`: the value sent and the words shown, when they differ. */
export interface SelectChoice<T extends string = string> {
  value: T
  label: string
}

export interface SelectProps<T extends string> {
  id?: string
  value: T | ''
  /** The entries, in order; a plain string is both value and label. */
  choices: readonly (T | SelectChoice<T>)[]
  onChange: (value: T) => void
  /** When set, a first entry with the value `''` and these words ("automatic", "All providers"). */
  blank?: string
  /** Ties the control to its hint and error message (see the dashboard's `described`). */
  'aria-describedby'?: string | undefined
  'aria-invalid'?: boolean | undefined
}

/**
 * A `<select>` over a list of choices that reports the chosen value (typed as the choices are). The
 * label is the caller's: a `<label for={id}>`, or a `<label>` around it.
 */
export function Select<T extends string>({ value, choices, onChange, blank, ...attributes }: SelectProps<T>) {
  return (
    <select
      {...attributes}
      value={value}
      onChange={(e) => onChange((e.target as HTMLSelectElement).value as T)}
    >
      {blank !== undefined ? <option value="">{blank}</option> : null}
      {choices.map((c) => {
        const { value: v, label } = typeof c === 'string' ? { value: c, label: c } : c
        return (
          <option key={v} value={v}>
            {label}
          </option>
        )
      })}
    </select>
  )
}
