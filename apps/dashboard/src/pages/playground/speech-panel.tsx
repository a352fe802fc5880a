import { useEffect, useId, useState } from 'preact/hooks'
import { request } from '../../api/client'
import { useFetch } from '../../hooks/use-fetch'

interface VoiceList {
  model: string
  voices: { id: string; name: string; language: string | null }[]
}

/** Text to speech on the `tts` slot: voices from `GET /v1/audio/voices`, an audio player. */
export function SpeechPanel() {
  const id = useId()
  const voices = useFetch(async () => (await (await request('/v1/audio/voices')).json()) as VoiceList, [])
  const [voice, setVoice] = useState('alloy')
  const [format, setFormat] = useState('mp3')
  const [text, setText] = useState('Hello from svc.')
  const [audio, setAudio] = useState<string | null>(null)
  const [error, setError] = useState<string | null>(null)
  const [busy, setBusy] = useState(false)
  useEffect(() => () => (audio ? URL.revokeObjectURL(audio) : undefined), [audio])
  return (
    <form
      class="stack"
      onSubmit={async (e) => {
        e.preventDefault()
        setError(null)
        setBusy(true)
        try {
          const res = await request('/v1/audio/speech', {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify({ model: 'tts', voice, input: text, response_format: format }),
          })
          setAudio(URL.createObjectURL(await res.blob()))
        } catch (err) {
          setError((err as Error).message)
        } finally {
          setBusy(false)
        }
      }}
    >
      {voices.error ? <p role="alert">Voices: {voices.error}</p> : null}
      <div class="form-grid">
        <div class="field">
          <label for={`${id}-voice`}>Voice</label>
          <select
            id={`${id}-voice`}
            value={voice}
            onChange={(e) => setVoice((e.target as HTMLSelectElement).value)}
          >
            {(voices.data?.voices ?? [{ id: 'alloy', name: 'alloy', language: null }]).map((v) => (
              <option key={v.id} value={v.id}>
                {v.name}
                {v.language ? ` (${v.language})` : ''}
              </option>
            ))}
          </select>
        </div>
        <div class="field">
          <label for={`${id}-format`}>Format</label>
          <select
            id={`${id}-format`}
            value={format}
            onChange={(e) => setFormat((e.target as HTMLSelectElement).value)}
          >
            {['mp3', 'wav', 'opus', 'flac', 'aac'].map((f) => (
              <option key={f} value={f}>
                {f}
              </option>
            ))}
          </select>
        </div>
      </div>
      <div class="field">
        <label for={`${id}-text`}>Text</label>
        <textarea
          id={`${id}-text`}
          rows={3}
          value={text}
          onInput={(e) => setText((e.target as HTMLTextAreaElement).value)}
        />
      </div>
      <div>
        <button type="submit" class="svc-button svc-button-primary" disabled={busy || !text.trim()}>
          {busy ? 'Speaking…' : 'Speak'}
        </button>
      </div>
      {error ? <p role="alert">{error}</p> : null}
      {audio ? (
        // biome-ignore lint/a11y/useMediaCaption: generated speech of the text shown above
        <audio controls autoplay src={audio} aria-label="Generated speech" />
      ) : null}
    </form>
  )
}
