import { ChatView } from '@svc/ui'
import { useState } from 'preact/hooks'
import { authHeaders } from '../../api/session'
import { ModelSelect } from './model-select'
import { useV1Models } from './v1-models'

/** Streaming chat against `/v1/chat/completions`; Stop aborts and svc stops the upstream. */
export function ChatPanel() {
  const models = useV1Models()
  const [model, setModel] = useState('primary')
  const chosen = models.data?.find((m) => m.id === model)
  return (
    <div class="stack">
      <ModelSelect models={models.data} value={model} onChange={setModel} />
      <ChatView
        key={model}
        url="/v1/chat/completions"
        model={model}
        headers={authHeaders}
        extraBody={{ max_tokens: 512 }}
        allowImages={chosen?.capabilities?.includes('vision') ?? false}
      />
    </div>
  )
}
