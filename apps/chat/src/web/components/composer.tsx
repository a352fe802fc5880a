import { ChatInput, FileButton, Select, useToasts } from '@svc/ui'
import { useId, useState } from 'preact/hooks'
import { generateImage, send, stop, upload } from '../actions'
import { acceptsImages, sendBlock, usable } from '../send-block'
import { store, useChat } from '../store'
import { AllowanceNote } from './allowance-note'
import { VoiceInput } from './voice-input'

const IMAGE_SIZES = ['512x512', '768x768', '1024x1024']

/**
 * The message box: Chat or Image mode, Send (disabled with the reason when the model cannot answer)
 * or Stop while an answer streams, image attachments for models with vision, voice input.
 */
export function Composer() {
  const toasts = useToasts()
  const models = useChat((s) => s.models)
  const model = useChat((s) => s.model)
  const mode = useChat((s) => s.mode)
  const streaming = useChat((s) => s.streaming)
  const [draft, setDraft] = useState('')
  const [size, setSize] = useState('')
  const [attachments, setAttachments] = useState<{ id: string; name: string }[]>([])
  const [uploading, setUploading] = useState(false)
  const reasonId = useId()
  const sizeId = useId()
  const vision = acceptsImages(models, model)
  const blocked = mode === 'chat' ? sendBlock(models, model) : null
  const empty = draft.trim() === '' && (mode === 'image' || attachments.length === 0)

  const submit = () => {
    if (streaming || empty || blocked || uploading) return
    const text = draft
    setDraft('')
    if (mode === 'image') {
      void generateImage(text.trim(), size || undefined)
      return
    }
    const files = vision ? attachments.map((a) => a.id) : []
    setAttachments([])
    void send(text, files)
  }

  return (
    <form
      class="svc-chat-form chat-composer"
      onSubmit={(event) => {
        event.preventDefault()
        submit()
      }}
    >
      <fieldset class="chat-mode">
        <legend class="svc-visually-hidden">Mode</legend>
        {(['chat', 'image'] as const).map((m) => (
          <label key={m}>
            <input
              type="radio"
              name="mode"
              value={m}
              checked={mode === m}
              disabled={streaming !== null}
              onChange={() => store.set({ mode: m })}
            />
            {m === 'chat' ? 'Chat' : 'Image'}
          </label>
        ))}
        {mode === 'image' ? (
          <label for={sizeId}>
            Size{' '}
            <Select id={sizeId} value={size} choices={IMAGE_SIZES} blank="model default" onChange={setSize} />
          </label>
        ) : null}
      </fieldset>
      <ChatInput
        label={mode === 'image' ? 'Image prompt' : 'Message'}
        value={draft}
        placeholder={
          mode === 'image'
            ? 'Describe an image to generate'
            : 'Message (Enter sends, Shift+Enter for a new line)'
        }
        onInput={setDraft}
        onSend={submit}
      />
      {attachments.length > 0 && mode === 'chat' ? (
        <ul class="chat-attachments" aria-label="Attachments">
          {attachments.map((a) => (
            <li key={a.id}>
              {a.name}{' '}
              <button
                type="button"
                class="svc-button"
                aria-label={`Remove ${a.name}`}
                onClick={() => setAttachments((all) => all.filter((x) => x.id !== a.id))}
              >
                ×
              </button>
            </li>
          ))}
        </ul>
      ) : null}
      <div class="svc-chat-actions">
        {vision && mode === 'chat' ? (
          <FileButton
            accept="image/png,image/jpeg,image/gif,image/webp"
            multiple
            onFiles={async (files) => {
              setUploading(true)
              try {
                for (const file of files) {
                  const stored = await upload(file)
                  setAttachments((all) => [...all, { id: stored.id, name: file.name }])
                }
              } catch (error) {
                toasts.show('error', `Could not attach: ${(error as Error).message}`)
              } finally {
                setUploading(false)
              }
            }}
          >
            {uploading ? 'Uploading…' : 'Attach image'}
          </FileButton>
        ) : null}
        {usable(models?.transcription) && mode === 'chat' ? (
          <VoiceInput onText={(text) => setDraft((d) => (d ? `${d} ${text}` : text))} />
        ) : null}
        {streaming ? (
          <button type="button" class="svc-button svc-button-danger" onClick={() => void stop()}>
            Stop
          </button>
        ) : (
          <button
            type="submit"
            class="svc-button svc-button-primary"
            disabled={Boolean(blocked) || empty || uploading}
            aria-describedby={blocked ? reasonId : undefined}
          >
            {mode === 'image' ? 'Generate' : 'Send'}
          </button>
        )}
      </div>
      <AllowanceNote />
      {blocked ? (
        <p id={reasonId} class="chat-reason" role="status">
          {blocked}
        </p>
      ) : null}
    </form>
  )
}
