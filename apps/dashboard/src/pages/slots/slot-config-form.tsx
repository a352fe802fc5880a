import { Modal, Select } from '@svc/ui'
import { useId, useState } from 'preact/hooks'
import { ApiError } from '../../api/client'
import type { SlotView } from '../../api/types'
import { CheckField } from '../../components/check-field'
import { described, Field } from '../../components/field'
import { extrasOf } from './slot-extras'

const BACKENDS = ['vulkan', 'rocm', 'cuda', 'cpu', 'npu'] as const
const RUNTIMES = ['container', 'process', 'remote'] as const
const PROVIDERS = ['llm', 'npu', 'stt', 'tts', 'image'] as const
const ROLES = ['chat', 'embed', 'rerank'] as const
const RESTARTS = [
  { value: 'on-failure', label: 'on failure' },
  { value: 'no', label: 'no' },
] as const

export interface Values {
  name: string
  provider: string
  backend: string
  runtime: string
  url: string
  enabled: boolean
  model: string
  restart: string
  max_restarts: string
  role: string
  ctx_size: string
  args: string
}

type TextKey = Exclude<keyof Values, 'enabled'>

/** Each field's label and hint (the hint also describes the control to screen readers). */
const FIELDS: Record<TextKey, { label: string; hint?: string }> = {
  name: { label: 'Name', hint: 'a-z, 0-9, - and _; used in URLs and as the model alias' },
  provider: { label: 'Provider' },
  backend: { label: 'Backend' },
  runtime: { label: 'Runtime' },
  url: { label: 'URL (remote runtime)', hint: 'the upstream already running there' },
  model: { label: 'Default model', hint: 'loaded at start when enabled' },
  role: { label: 'Role' },
  restart: { label: 'Restart after a crash' },
  max_restarts: { label: 'Most restarts' },
  ctx_size: { label: 'Context size', hint: 'tokens; empty: the model’s own' },
  args: { label: 'Extra upstream arguments', hint: 'one per line' },
}

/** The form's values for `slot` as saved now (a new slot's defaults when absent). */
export function initial(slot: SlotView | undefined): Values {
  return {
    name: slot?.name ?? '',
    provider: slot?.provider ?? 'llm',
    backend: slot?.backend ?? '',
    runtime: slot?.runtime ?? '',
    url: slot?.config.url ?? '',
    enabled: slot?.config.enabled ?? false,
    model: slot?.config.default_model ?? '',
    restart: slot?.config.restart ?? 'on-failure',
    max_restarts: String(slot?.config.max_restarts ?? 5),
    role: slot?.config.role ?? '',
    ctx_size: slot?.config.ctx_size != null ? String(slot.config.ctx_size) : '',
    args: (slot?.config.args ?? []).join('\n'),
  }
}

/** The JSON the API takes (the TOML file's fields); empty fields are left out (their defaults apply). */
export function configBody(values: Values, withName: boolean): Record<string, unknown> {
  const body: Record<string, unknown> = { enabled: values.enabled, restart: values.restart }
  if (withName) body.name = values.name.trim()
  if (values.provider.trim()) body.provider = values.provider.trim()
  if (values.backend) body.backend = values.backend
  if (values.runtime) body.runtime = values.runtime
  // A URL means something only to the remote runtime; a process or container slot never sends one.
  if (values.runtime === 'remote' && values.url.trim()) body.url = values.url.trim()
  if (values.role) body.role = values.role
  if (values.max_restarts.trim()) body.max_restarts = Number(values.max_restarts)
  if (values.ctx_size.trim()) body.ctx_size = Number(values.ctx_size)
  const args = values.args
    .split('\n')
    .map((a) => a.trim())
    .filter(Boolean)
  if (args.length) body.args = args
  if (values.model.trim()) body.model = { default: values.model.trim() }
  return body
}

export interface SlotConfigFormProps {
  /** Absent: create a custom slot. */
  slot?: SlotView
  onSave: (body: Record<string, unknown>) => Promise<void>
  onClose: () => void
}

/**
 * Creates a custom slot or edits a slot's settings. The server validates; its message appears next
 * to the field it names (`param`). Backend and runtime show what the slot uses now; saving writes them.
 * Labels sit in one column and controls in the next (stacked below 600 px); the URL shows only for
 * the remote runtime, role and context size only for an llm slot.
 */
export function SlotConfigForm({ slot, onSave, onClose }: SlotConfigFormProps) {
  const id = useId()
  const [values, setValues] = useState(() => initial(slot))
  const [errors, setErrors] = useState<Record<string, string>>({})
  const [busy, setBusy] = useState(false)
  const set = <K extends keyof Values>(key: K, value: Values[K]) => setValues((v) => ({ ...v, [key]: value }))
  const err = (param: string) => errors[param] ?? null
  const llm = values.provider.trim() === 'llm'
  // The backends the API says run here (`runnable`), and the slot's own even when it does not (so
  // the form shows what is set); a new slot, or an API without the verdict, lists them all.
  const runnable = extrasOf(slot, undefined).runnable
  const backendChoices = runnable
    ? runnable.backends
        .filter((b) => b.ok || b.backend === values.backend)
        .map((b) => ({ value: b.backend, label: b.ok ? b.backend : `${b.backend} (cannot run here)` }))
    : BACKENDS
  /** The Field around `key`'s control: its label, hint and the server's message for it. */
  const field = (key: TextKey) => ({ id: `${id}-${key}`, ...FIELDS[key], error: err(key) })
  /** What every control of `key` has: its id and the aria that ties it to its hint and error. */
  const named = (key: TextKey) => ({
    id: `${id}-${key}`,
    ...described(`${id}-${key}`, err(key), FIELDS[key].hint),
  })
  const text = (key: TextKey) => ({
    ...named(key),
    value: values[key],
    onInput: (e: Event) => set(key, (e.target as HTMLInputElement).value),
  })
  const choice = (key: 'backend' | 'runtime' | 'role' | 'restart') => ({
    ...named(key),
    value: values[key],
    onChange: (value: string) => set(key, value),
  })
  const submit = async () => {
    setBusy(true)
    setErrors({})
    try {
      await onSave(configBody(values, !slot))
      onClose()
    } catch (e) {
      const param = e instanceof ApiError && e.param ? e.param.replace(/^model\.default$/, 'model') : '_form'
      setErrors({ [param in values ? param : '_form']: (e as Error).message })
    } finally {
      setBusy(false)
    }
  }
  return (
    <Modal
      title={slot ? `Settings of ${slot.name}` : 'New custom slot'}
      onDismiss={onClose}
      actions={
        <>
          <button type="button" class="svc-button" onClick={onClose}>
            Cancel
          </button>
          <button type="submit" form={`${id}-form`} class="svc-button svc-button-primary" disabled={busy}>
            {slot ? 'Save' : 'Create slot'}
          </button>
        </>
      }
    >
      <form
        id={`${id}-form`}
        class="slot-settings"
        onSubmit={(e) => {
          e.preventDefault()
          void submit()
        }}
      >
        {!slot ? (
          <Field {...field('name')}>
            <input {...text('name')} required />
          </Field>
        ) : null}
        <Field {...field('provider')}>
          <input {...text('provider')} list={`${id}-providers`} />
          <datalist id={`${id}-providers`}>
            {PROVIDERS.map((p) => (
              <option key={p} value={p} />
            ))}
          </datalist>
        </Field>
        <Field {...field('backend')}>
          <Select {...choice('backend')} choices={backendChoices} blank="automatic (the picker's choice)" />
        </Field>
        <Field {...field('runtime')}>
          <Select {...choice('runtime')} choices={RUNTIMES} blank="automatic" />
        </Field>
        {values.runtime === 'remote' ? (
          <Field {...field('url')}>
            <input {...text('url')} type="url" placeholder="http://10.0.0.5:8188" />
          </Field>
        ) : null}
        <Field {...field('model')}>
          <input {...text('model')} />
        </Field>
        <CheckField
          class="field"
          label="Load the default model when svc starts"
          checked={values.enabled}
          onChange={(on) => set('enabled', on)}
        />
        {llm ? (
          <Field {...field('role')}>
            <Select {...choice('role')} choices={ROLES} blank="default" />
          </Field>
        ) : null}
        <Field {...field('restart')}>
          <Select {...choice('restart')} choices={RESTARTS} />
        </Field>
        <Field {...field('max_restarts')}>
          <input {...text('max_restarts')} type="number" min={0} max={100} />
        </Field>
        {llm ? (
          <Field {...field('ctx_size')}>
            <input {...text('ctx_size')} type="number" min={0} />
          </Field>
        ) : null}
        <Field {...field('args')}>
          <textarea {...text('args')} rows={3} />
        </Field>
        {errors._form ? (
          <p class="field-error" role="alert">
            {errors._form}
          </p>
        ) : null}
      </form>
    </Modal>
  )
}
