import { useEffect, useId, useRef, useState } from 'preact/hooks'
import { request } from '../../api/client'
import { SubmitRow } from '../../components/submit-row'
import { useSubmit } from '../../hooks/use-submit'
import { useKindGate } from './kind-gate'
import { ModelSelect } from './model-select'
import { inWords } from './problem'
import { modelsFor, useV1Models } from './v1-models'

/**
 * Speech to text: a model that transcribes (listed by `/v1/models`), a file or a recording from the
 * microphone. Transcribe stays disabled, with the reason and its fix, while nothing can transcribe.
 */
export function TranscribePanel() {
  const id = useId()
  const v1 = useV1Models()
  const models = v1.data && modelsFor(v1.data, 'transcriptions')
  const gate = useKindGate('transcription', models)
  const [picked, setModel] = useState<string | null>(null)
  const model = picked ?? models?.[0]?.id ?? ''
  const [file, setFile] = useState<Blob | null>(null)
  const [recording, setRecording] = useState(false)
  const [text, setText] = useState<string | null>(null)
  const recorder = useRef<MediaRecorder | null>(null)
  useEffect(
    () => () => {
      for (const t of recorder.current?.stream.getTracks() ?? []) t.stop()
    },
    [],
  )

  const submit = useSubmit(async () => {
    if (!file) return
    const body = new FormData()
    body.append('model', model)
    body.append('file', file, file instanceof File ? file.name : 'recording.webm')
    const res = await inWords(request('/v1/audio/transcriptions', { method: 'POST', body }), model)
    setText(((await res.json()) as { text: string }).text)
  })

  const record = async () => {
    if (recording) {
      recorder.current?.stop()
      return
    }
    submit.setError(null)
    try {
      const stream = await navigator.mediaDevices.getUserMedia({ audio: true })
      const chunks: Blob[] = []
      const r = new MediaRecorder(stream)
      r.ondataavailable = (e) => chunks.push(e.data)
      r.onstop = () => {
        for (const t of stream.getTracks()) t.stop()
        setFile(new Blob(chunks, { type: r.mimeType || 'audio/webm' }))
        setRecording(false)
      }
      recorder.current = r
      r.start()
      setRecording(true)
    } catch (e) {
      submit.setError(`The microphone is not available: ${(e as Error).message}`)
    }
  }

  return (
    <form class="stack" onSubmit={submit.onSubmit}>
      {gate.notice}
      <ModelSelect models={models} value={model} onChange={setModel} />
      <div class="field">
        <label for={`${id}-file`}>Audio file</label>
        <input
          id={`${id}-file`}
          type="file"
          accept="audio/*,video/*"
          onChange={(e) => setFile((e.target as HTMLInputElement).files?.[0] ?? null)}
        />
      </div>
      {file && !(file instanceof File) ? (
        <p class="hint">Recorded {Math.round(file.size / 1024)} KB.</p>
      ) : null}
      <SubmitRow
        submit={submit}
        label="Transcribe"
        busyLabel="Transcribing…"
        disabled={!file || !gate.open || !model}
      >
        <button type="button" class="svc-button" onClick={record} aria-pressed={recording}>
          {recording ? 'Stop recording' : 'Record from the microphone'}
        </button>
      </SubmitRow>
      {text !== null ? (
        <p role="status" class="transcript">
          {text || '(no speech recognised)'}
        </p>
      ) : null}
    </form>
  )
}
