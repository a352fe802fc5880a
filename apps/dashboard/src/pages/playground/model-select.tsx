import { Select } from '@svc/ui'
import { useId } from 'preact/hooks'
import { Field } from '../../components/field'
import type { V1Model } from './v1-models'

/** A labelled model picker over entries of `/v1/models`, each with its slot's state; nothing when there are none. */
export function ModelSelect(props: {
  models: V1Model[] | undefined
  value: string
  onChange: (id: string) => void
  label?: string
}) {
  const id = useId()
  if (props.models?.length === 0) return null // the tab's notice says why nothing is offered
  const choices = (props.models ?? []).map((m) => ({
    value: m.id,
    label: m._svc?.state ? `${m.id} (${m._svc.state})` : m.id,
  }))
  return (
    <Field id={id} label={props.label ?? 'Model'} inline>
      <Select id={id} value={props.value} choices={choices} onChange={props.onChange} />
    </Field>
  )
}
