import type { JSX } from 'preact'
import { useId } from 'preact/hooks'

export interface TextFieldProps {
  label: string
  value: string
  onChange: (value: string) => void
  /** A textarea of this many lines; absent: a one-line input. */
  rows?: number
  /** More attributes of the one-line input (`type`, `min`, `pattern`, …). */
  input?: Omit<JSX.InputHTMLAttributes<HTMLInputElement>, 'id' | 'value' | 'onInput'>
}

/** A labelled text box, one line or several, that reports its text as it is typed. */
export function TextField({ label, value, onChange, rows, input }: TextFieldProps) {
  const id = useId()
  const onInput = (e: Event) => onChange((e.target as HTMLInputElement | HTMLTextAreaElement).value)
  return (
    <div class="field">
      <label for={id}>{label}</label>
      {rows ? (
        <textarea id={id} rows={rows} value={value} onInput={onInput} />
      ) : (
        <input {...input} id={id} value={value} onInput={onInput} />
      )}
    </div>
  )
}
