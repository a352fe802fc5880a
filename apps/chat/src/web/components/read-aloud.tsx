import { useToasts } from '@svc/ui'
import { useEffect, useRef, useState } from 'preact/hooks'
import { speak } from '../actions'
import { plain } from '../plain-text'

/**
 * Read aloud: asks the `tts` slot (through the chat server) to speak the answer and plays it. The
 * player stays under the message so it can be paused or replayed.
 */
export function ReadAloud({ text }: { text: string }) {
  const toasts = useToasts()
  const [url, setUrl] = useState<string | null>(null)
  const [loading, setLoading] = useState(false)
  const audio = useRef<HTMLAudioElement>(null)
  useEffect(() => () => (url ? URL.revokeObjectURL(url) : undefined), [url])
  useEffect(() => {
    if (url) void audio.current?.play().catch(() => undefined)
  }, [url])
  return (
    <>
      <button
        type="button"
        class="svc-button"
        disabled={loading}
        onClick={async () => {
          if (url) {
            void audio.current?.play()
            return
          }
          setLoading(true)
          try {
            setUrl(await speak(plain(text)))
          } catch (error) {
            toasts.show('error', `Read-aloud failed: ${(error as Error).message}`)
          } finally {
            setLoading(false)
          }
        }}
      >
        {loading ? 'Preparing audio…' : 'Read aloud'}
      </button>
      {url ? (
        // biome-ignore lint/a11y/useMediaCaption: spoken copy of the text shown above
        <audio ref={audio} class="chat-audio" src={url} controls aria-label="Read-aloud audio" />
      ) : null}
    </>
  )
}
