import { Select } from '@svc/ui'
import { useEffect, useId, useState } from 'preact/hooks'
import { postJson, request } from '../../api/client'
import { Field } from '../../components/field'
import { SubmitRow } from '../../components/submit-row'
import { TextField } from '../../components/text-field'
import { useFetch } from '../../hooks/use-fetch'
import { useSubmit } from '../../hooks/use-submit'
import { useKindGate } from './kind-gate'
import { ModelSelect } from './model-select'
import { inWords } from './problem'
import { modelsFor, useV1Models } from './v1-models'

interface VoiceList {
  model: string
  voices: { id: string; name: string; language: string | null }[]
}

const FORMATS = ['mp3', 'wav', 'opus', 'flac', 'aac'] as const

/**
 * Text to speech: a model that speaks (listed by `/v1/models`), voices from `GET /v1/audio/voices`,
 * an audio player. Speak stays disabled, with the reason and its fix, while nothing can speak.
 */
export function SpeechPanel() {
  const id = useId()
  const v1 = useV1Models()
  const models = v1.data && modelsFor(v1.data, 'speech')
  const gate = useKindGate('speech', models)
  const [picked, setModel] = useState<string | null>(null)
  const model = picked ?? models?.[0]?.id ?? ''
  // Asked again once something speaks (an empty tts slot lists no voices).
  const voices = useFetch(
    async () => (await (await request('/v1/audio/voices')).json()) as VoiceList,
    [gate.open],
  )
  const [voice, setVoice] = useState('alloy')
  const [format, setFormat] = useState('mp3')
  const [text, setText] = useState('Hello from svc.')
  const [audio, setAudio] = useState<string | null>(null)
  useEffect(() => () => (audio ? URL.revokeObjectURL(audio) : undefined), [audio])
  const submit = useSubmit(async () => {
    const res = await inWords(
      postJson('/v1/audio/speech', { model, voice, input: text, response_format: format }),
      model,
    )
    setAudio(URL.createObjectURL(await res.blob()))
  })
  const voiceChoices = (voices.data?.voices ?? [{ id: 'alloy', name: 'alloy', language: null }]).map((v) => ({
    value: v.id,
    label: v.language ? `${v.name} (${v.language})` : v.name,
  }))
  return (
    <form class="stack" onSubmit={submit.onSubmit}>
      {gate.notice}
      {voices.error && gate.open ? <p role="alert">Voices: {voices.error}</p> : null}
      <ModelSelect models={models} value={model} onChange={setModel} />
      <div class="form-grid">
        <Field id={`${id}-voice`} label="Voice">
          <Select id={`${id}-voice`} value={voice} choices={voiceChoices} onChange={setVoice} />
        </Field>
        <Field id={`${id}-format`} label="Format">
          <Select id={`${id}-format`} value={format} choices={FORMATS} onChange={setFormat} />
        </Field>
      </div>
      <TextField label="Text" rows={3} value={text} onChange={setText} />
      <SubmitRow
        submit={submit}
        label="Speak"
        busyLabel="Speaking…"
        disabled={!text.trim() || !gate.open || !model}
      />
      {audio ? (
        // biome-ignore lint/a11y/useMediaCaption: generated speech of the text shown above
        <audio controls autoplay src={audio} aria-label="Generated speech" />
      ) : null}
    </form>
  )
}
