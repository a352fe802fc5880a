import { useToasts } from '@svc/ui'
import { useRef, useState } from 'preact/hooks'
import { transcribe } from '../media-actions'

/**
 * Voice input: Record → speak → Stop recording; the recording goes to the `stt` slot (through the
 * chat server) and the words land in the message box to check before sending.
 */
export function VoiceInput({ onText }: { onText: (text: string) => void }) {
  const toasts = useToasts()
  const [state, setState] = useState<'idle' | 'recording' | 'transcribing'>('idle')
  const recorder = useRef<MediaRecorder | null>(null)

  async function start() {
    let media: MediaStream
    try {
      media = await navigator.mediaDevices.getUserMedia({ audio: true })
    } catch (error) {
      toasts.show('error', `The microphone is not available: ${(error as Error).message}`)
      return
    }
    const chunks: Blob[] = []
    const rec = new MediaRecorder(media)
    rec.ondataavailable = (event) => chunks.push(event.data)
    rec.onstop = async () => {
      for (const track of media.getTracks()) track.stop()
      setState('transcribing')
      try {
        const text = await transcribe(new Blob(chunks, { type: rec.mimeType || 'audio/webm' }))
        if (text) onText(text)
        else toasts.show('info', 'Nothing was heard.')
      } catch (error) {
        toasts.show('error', `Transcription failed: ${(error as Error).message}`)
      } finally {
        setState('idle')
      }
    }
    recorder.current = rec
    rec.start()
    setState('recording')
  }

  return (
    <button
      type="button"
      class={state === 'recording' ? 'svc-button svc-button-danger' : 'svc-button'}
      aria-pressed={state === 'recording'}
      disabled={state === 'transcribing'}
      onClick={() => (state === 'recording' ? recorder.current?.stop() : void start())}
    >
      {state === 'recording' ? 'Stop recording' : state === 'transcribing' ? 'Transcribing…' : 'Record'}
    </button>
  )
}
