import { ChatView } from '@svc/ui'
import { useId, useState } from 'preact/hooks'
import { authHeaders } from '../../api/session'
import { Field } from '../../components/field'
import { ModelSelect } from './model-select'
import { useV1Models } from './v1-models'

/** Streaming chat against `/v1/chat/completions`; Stop aborts and svc stops the upstream. */
export function ChatPanel() {
  const models = useV1Models()
  const [model, setModel] = useState('primary')
  const [maxTokens, setMaxTokens] = useState('512')
  const id = useId()
  const chosen = models.data?.find((m) => m.id === model)
  return (
    <div class="stack">
      <div class="form-row">
        <ModelSelect models={models.data} value={model} onChange={setModel} />
        <Field id={id} label="Max tokens" inline>
          <input
            id={id}
            type="number"
            min={1}
            value={maxTokens}
            onInput={(e) => setMaxTokens((e.target as HTMLInputElement).value)}
          />
        </Field>
      </div>
      <ChatView
        key={model}
        url="/v1/chat/completions"
        model={model}
        headers={authHeaders}
        extraBody={Number(maxTokens) > 0 ? { max_tokens: Number(maxTokens) } : {}}
        allowImages={chosen?.capabilities?.includes('vision') ?? false}
      />
    </div>
  )
}
