import { ChatInput, FileButton, Select } from '@svc/ui'
import { useEffect, useId, useMemo, useRef, useState } from 'preact/hooks'
import { MAX_MESSAGE_BYTES, MAX_UPLOAD_BYTES, utf8Bytes } from '../../server/http/limits'
import { send, stop } from '../actions'
import { generateImage, upload } from '../media-actions'
import { megabytes } from '../page-text'
import { acceptsImages, offersImages, sendBlock, usable } from '../send-block'
import { store, useChat } from '../store'
import { useVoice } from '../voice/voice-store'
import { AllowanceNote } from './allowance-note'
import { ComposerNotice } from './composer-notice'
import { VoiceInput } from './voice-input'
import { TalkButton, VoicePanel } from './voice-mode'

const IMAGE_SIZES = ['512x512', '768x768', '1024x1024']

/**
 * The message box, pinned under the conversation: Chat or Image mode (Image only where a listed model
 * makes images), Send (disabled with the reason and its fix when the model cannot answer) or Stop
 * while an answer streams, image attachments for models with vision, voice input. What is typed is
 * checked before sending (size, in MB) and stays in the box until the server has taken it.
 */
export function Composer() {
  const models = useChat((s) => s.models)
  const model = useChat((s) => s.model)
  const chosenMode = useChat((s) => s.mode)
  const streaming = useChat((s) => s.streaming)
  // Voice mode holds the conversation (the server refuses a typed answer meanwhile).
  const talking = useVoice((v) => v.phase !== 'off')
  const [draft, setDraft] = useState('')
  const [size, setSize] = useState('')
  const [attachments, setAttachments] = useState<{ id: string; name: string }[]>([])
  const [uploading, setUploading] = useState(false)
  const form = useRef<HTMLFormElement>(null)
  // Its height, for the toasts to sit above it (chat.css) and never cover Send or Stop.
  useEffect(() => {
    const el = form.current
    if (!el) return
    const observer = new ResizeObserver(() =>
      document.documentElement.style.setProperty('--chat-composer-height', `${el.offsetHeight}px`),
    )
    observer.observe(el)
    return () => observer.disconnect()
  }, [])
  const reasonId = useId()
  const sizeId = useId()
  const images = offersImages(models)
  const mode = images ? chosenMode : 'chat'
  const vision = acceptsImages(models, model)
  const blocked = mode === 'chat' ? sendBlock(models, model) : null
  const empty = draft.trim() === '' && (mode === 'image' || attachments.length === 0)
  // UTF-8 is 1–3 bytes per UTF-16 unit: a short text cannot be too large, and is not measured.
  const bytes = useMemo(() => (draft.length * 3 <= MAX_MESSAGE_BYTES ? 0 : utf8Bytes(draft)), [draft])
  const tooLarge =
    bytes > MAX_MESSAGE_BYTES
      ? `This message is ${megabytes(bytes)} — the most one message can be is ${megabytes(MAX_MESSAGE_BYTES)}. Shorten it to send it; nothing was sent.`
      : null

  const submit = () => {
    if (streaming || talking || empty || blocked || uploading || tooLarge) return
    const text = draft
    setDraft('')
    // Given back to the box when the server refuses the turn (nothing of it was kept).
    const giveBack = () => setDraft((now) => now || text)
    if (mode === 'image') {
      void generateImage(text.trim(), size || undefined, giveBack)
      return
    }
    const kept = vision ? attachments : []
    setAttachments([])
    void send(
      text,
      kept.map((a) => a.id),
      () => {
        giveBack()
        setAttachments((now) => (now.length ? now : kept))
      },
    )
  }

  return (
    <form
      ref={form}
      class="svc-chat-form chat-composer"
      onSubmit={(event) => {
        event.preventDefault()
        submit()
      }}
    >
      {images ? (
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
                onChange={() => store.set({ mode: m, notice: null })}
              />
              {m === 'chat' ? 'Chat' : 'Image'}
            </label>
          ))}
          {mode === 'image' ? (
            <label for={sizeId}>
              Size{' '}
              <Select
                id={sizeId}
                value={size}
                choices={IMAGE_SIZES}
                blank="model default"
                onChange={setSize}
              />
            </label>
          ) : null}
        </fieldset>
      ) : null}
      <ComposerNotice id={reasonId} block={blocked} tooLarge={tooLarge} />
      <VoicePanel />
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
              // Checked before uploading: a picture over the limit is named, in MB, and not sent.
              const over = files.find((f) => f.size > MAX_UPLOAD_BYTES)
              if (over) {
                const text = `${over.name} is ${megabytes(over.size)} — the most one image can be is ${megabytes(MAX_UPLOAD_BYTES)}. Nothing was attached.`
                store.set({ notice: { kind: 'error', text } })
                return
              }
              setUploading(true)
              try {
                for (const file of files) {
                  const stored = await upload(file)
                  setAttachments((all) => [...all, { id: stored.id, name: file.name }])
                }
              } catch (error) {
                store.set({
                  notice: { kind: 'error', text: `Could not attach: ${(error as Error).message}` },
                })
              } finally {
                setUploading(false)
              }
            }}
          >
            {uploading ? 'Uploading…' : 'Attach image'}
          </FileButton>
        ) : null}
        {usable(models?.transcription) && mode === 'chat' && !talking ? (
          <VoiceInput onText={(text) => setDraft((d) => (d ? `${d} ${text}` : text))} />
        ) : null}
        {mode === 'chat' &&
        !blocked &&
        !streaming &&
        usable(models?.transcription) &&
        usable(models?.speech) ? (
          <TalkButton />
        ) : null}
        {streaming ? (
          <button type="button" class="svc-button svc-button-danger" onClick={() => void stop()}>
            Stop
          </button>
        ) : (
          <button
            type="submit"
            class="svc-button svc-button-primary"
            disabled={Boolean(blocked) || talking || empty || uploading || Boolean(tooLarge)}
            aria-describedby={blocked || tooLarge ? reasonId : undefined}
          >
            {mode === 'image' ? 'Generate' : 'Send'}
          </button>
        )}
      </div>
      <AllowanceNote />
    </form>
  )
}
