import { ChatView } from '@svc/ui'
import { useId, useState } from 'preact/hooks'
import { authHeaders } from '../../api/session'
import { Field } from '../../components/field'
import { TextField } from '../../components/text-field'
import { useLive } from '../../store/use-live'
import { ChatProblem, type ChatTarget } from './chat-problem'
import { useKindGate } from './kind-gate'
import { ModelSelect } from './model-select'
import { type LiveSlot, runsHere, slotServing } from './slot-facts'
import { modelsFor, useV1Models, type V1Model } from './v1-models'

/**
 * Streaming chat against `/v1/chat/completions` with the models that chat (no embedding, speech or
 * transcription model): max tokens, temperature, a system prompt, Clear; each answer's tokens/s and
 * time to first token. Stop aborts and svc stops the upstream. A failed answer says what to do in the
 * page (Load an empty slot, open the slot's settings for a context that is too small).
 */
export function ChatPanel() {
  const slots = useLive((s) => s.slots as LiveSlot[])
  const v1 = useChatModels(slots)
  const [picked, setModel] = useState<string | null>(null)
  const [maxTokens, setMaxTokens] = useState('512')
  const [temperature, setTemperature] = useState('')
  const [system, setSystem] = useState('')
  const id = useId()
  const models = v1.models
  const model = picked ?? models?.[0]?.id ?? ''
  const chosen = models?.find((m) => m.id === model)
  const gate = useKindGate('chat', models)
  const extraBody: Record<string, unknown> = {}
  if (Number(maxTokens) > 0) extraBody.max_tokens = Number(maxTokens)
  if (temperature.trim() !== '' && Number.isFinite(Number(temperature)))
    extraBody.temperature = Number(temperature)
  const target = targetOf(chosen, model, slots)
  return (
    <div class="stack">
      {v1.error ? <p role="alert">{v1.error}</p> : null}
      {models?.length === 0 ? gate.notice : null}
      <div class="form-row">
        <ModelSelect models={models} value={model} onChange={setModel} />
        <Field id={`${id}-max`} label="Max tokens" inline>
          <input
            id={`${id}-max`}
            type="number"
            min={1}
            value={maxTokens}
            onInput={(e) => setMaxTokens((e.target as HTMLInputElement).value)}
          />
        </Field>
        <Field id={`${id}-temp`} label="Temperature" inline>
          <input
            id={`${id}-temp`}
            type="number"
            min={0}
            max={2}
            step={0.1}
            placeholder="model's"
            value={temperature}
            onInput={(e) => setTemperature((e.target as HTMLInputElement).value)}
          />
        </Field>
      </div>
      <TextField label="System prompt" rows={2} value={system} onChange={setSystem} />
      <ChatView
        // A new conversation when the person picks another model; not when the list first arrives
        // (that would drop what they typed meanwhile).
        key={picked ?? ''}
        url="/v1/chat/completions"
        model={chosen ? model : ''}
        headers={authHeaders}
        extraBody={extraBody}
        system={system}
        allowImages={chosen?.capabilities?.includes('vision') ?? false}
        renderError={(failure, resend) => <ChatProblem failure={failure} target={target} resend={resend} />}
      />
    </div>
  )
}

/**
 * The chat models of `/v1/models`, and the chat slots that run here but hold no model (listed as
 * "(offline)"): chatting to one says so and offers Load.
 */
function useChatModels(slots: readonly LiveSlot[]): { models: V1Model[] | undefined; error: string | null } {
  const v1 = useV1Models()
  if (!v1.data) return { models: undefined, error: v1.error }
  const listed = modelsFor(v1.data, 'chat')
  const empty = slots
    .filter((s) => s.serves?.includes('chat') && runsHere(s) && !listed.some((m) => m.id === s.name))
    .map((s) => ({
      id: s.name,
      capabilities: ['chat'],
      _svc: { slot: s.name, state: s.state, loaded: false },
    }))
  return { models: [...listed, ...empty], error: v1.error }
}

/**
 * Where a chat's model runs, for the Load fix: a slot alias is its own slot (its default model or
 * the picker); a ref its slot, or the slot that serves chat.
 */
function targetOf(entry: V1Model | undefined, model: string, slots: readonly LiveSlot[]): ChatTarget {
  if (slots.some((s) => s.name === model) || entry?._svc?.slot === model) return { slot: model }
  const slot = entry?._svc?.slot ?? slotServing(slots, 'chat')?.name ?? 'primary'
  return { slot, model }
}
