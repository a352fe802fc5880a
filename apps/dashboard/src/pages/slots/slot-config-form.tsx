import { Modal, Select } from '@svc/ui'
import { useId, useState } from 'preact/hooks'
import { ApiError } from '../../api/client'
import type { SlotView } from '../../api/types'
import { CheckField } from '../../components/check-field'
import { described, Field } from '../../components/field'

const BACKENDS = ['vulkan', 'rocm', 'cuda', 'cpu', 'npu'] as const
const RUNTIMES = ['container', 'process', 'remote'] as const
const PROVIDERS = ['llm', 'npu', 'stt', 'tts', 'image'] as const
const ROLES = ['chat', 'embed', 'rerank'] as const
const RESTARTS = [
  { value: 'on-failure', label: 'on failure' },
  { value: 'no', label: 'no' },
] as const

interface Values {
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

function initial(slot: SlotView | undefined): Values {
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
  if (values.url.trim()) body.url = values.url.trim()
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
 */
export function SlotConfigForm({ slot, onSave, onClose }: SlotConfigFormProps) {
  const id = useId()
  const [values, setValues] = useState(() => initial(slot))
  const [errors, setErrors] = useState<Record<string, string>>({})
  const [busy, setBusy] = useState(false)
  const set = <K extends keyof Values>(key: K, value: Values[K]) => setValues((v) => ({ ...v, [key]: value }))
  const text = (key: Exclude<keyof Values, 'enabled'>) => ({
    id: `${id}-${key}`,
    value: values[key],
    onInput: (e: Event) => set(key, (e.target as HTMLInputElement).value),
  })
  const choice = (key: 'backend' | 'runtime' | 'role' | 'restart') => ({
    id: `${id}-${key}`,
    value: values[key],
    onChange: (value: string) => set(key, value),
  })
  const err = (param: string) => errors[param] ?? null
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
        class="form-grid"
        onSubmit={(e) => {
          e.preventDefault()
          void submit()
        }}
      >
        {!slot ? (
          <Field
            id={`${id}-name`}
            label="Name"
            error={err('name')}
            hint="a-z, 0-9, - and _; used in URLs and as the model alias"
          >
            <input {...text('name')} required {...described(`${id}-name`, err('name'), 'x')} />
          </Field>
        ) : null}
        <Field id={`${id}-provider`} label="Provider" error={err('provider')}>
          <input
            {...text('provider')}
            list={`${id}-providers`}
            {...described(`${id}-provider`, err('provider'))}
          />
          <datalist id={`${id}-providers`}>
            {PROVIDERS.map((p) => (
              <option key={p} value={p} />
            ))}
          </datalist>
        </Field>
        <Field id={`${id}-backend`} label="Backend" error={err('backend')}>
          <Select {...choice('backend')} choices={BACKENDS} blank="automatic (the picker's choice)" />
        </Field>
        <Field id={`${id}-runtime`} label="Runtime" error={err('runtime')}>
          <Select {...choice('runtime')} choices={RUNTIMES} blank="automatic" />
        </Field>
        <Field
          id={`${id}-url`}
          label="URL (remote runtime)"
          error={err('url')}
          hint="the upstream already running there"
        >
          <input
            {...text('url')}
            type="url"
            placeholder="http://10.0.0.5:8188"
            {...described(`${id}-url`, err('url'), 'x')}
          />
        </Field>
        <Field
          id={`${id}-model`}
          label="Default model"
          error={err('model')}
          hint="loaded at start when enabled"
        >
          <input {...text('model')} {...described(`${id}-model`, err('model'), 'x')} />
        </Field>
        <CheckField
          class="field"
          label="Load the default model when svc starts"
          checked={values.enabled}
          onChange={(on) => set('enabled', on)}
        />
        <Field id={`${id}-role`} label="Role (llm)" error={err('role')}>
          <Select {...choice('role')} choices={ROLES} blank="default" />
        </Field>
        <Field id={`${id}-restart`} label="Restart after a crash" error={err('restart')}>
          <Select {...choice('restart')} choices={RESTARTS} />
        </Field>
        <Field id={`${id}-max_restarts`} label="Most restarts" error={err('max_restarts')}>
          <input
            {...text('max_restarts')}
            type="number"
            min={0}
            max={100}
            {...described(`${id}-max_restarts`, err('max_restarts'))}
          />
        </Field>
        <Field id={`${id}-ctx_size`} label="Context size (llm)" error={err('ctx_size')}>
          <input
            {...text('ctx_size')}
            type="number"
            min={0}
            {...described(`${id}-ctx_size`, err('ctx_size'))}
          />
        </Field>
        <Field id={`${id}-args`} label="Extra upstream arguments" error={err('args')} hint="one per line">
          <textarea {...text('args')} rows={3} {...described(`${id}-args`, err('args'), 'x')} />
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
