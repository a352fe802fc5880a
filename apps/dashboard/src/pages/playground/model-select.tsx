import { useId } from 'preact/hooks'
import type { V1Model } from './v1-models'

/** A labelled model picker; `prefer` chooses the first entry when nothing is selected yet. */
export function ModelSelect(props: {
  models: V1Model[] | undefined
  value: string
  onChange: (id: string) => void
  label?: string
}) {
  const id = useId()
  return (
    <div class="field field-inline">
      <label for={id}>{props.label ?? 'Model'}</label>
      <select
        id={id}
        value={props.value}
        onChange={(e) => props.onChange((e.target as HTMLSelectElement).value)}
      >
        {(props.models ?? []).map((m) => (
          <option key={m.id} value={m.id}>
            {m.id}
            {m._svc?.state ? ` (${m._svc.state})` : ''}
          </option>
        ))}
      </select>
    </div>
  )
}
