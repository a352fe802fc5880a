import type { JSX } from 'preact'
import { useEffect, useRef, useState } from 'preact/hooks'
import { speak } from '../media-actions'
import { plain } from '../plain-text'

export interface ReadAloud {
  /** Asks the `tts` slot for the spoken text (once) and plays it. */
  start(): Promise<void>
  loading: boolean
  /** The player, under the message once there is audio (so it can be paused or replayed). */
  player: JSX.Element | null
}

/** Read aloud: asks the `tts` slot (through the chat server) to speak the answer and plays it. */
export function useReadAloud(text: string, onError: (message: string) => void): ReadAloud {
  const [url, setUrl] = useState<string | null>(null)
  const [loading, setLoading] = useState(false)
  const audio = useRef<HTMLAudioElement>(null)
  useEffect(() => () => (url ? URL.revokeObjectURL(url) : undefined), [url])
  useEffect(() => {
    if (url) void audio.current?.play().catch(() => undefined)
  }, [url])
  return {
    loading,
    async start() {
      if (url) {
        void audio.current?.play()
        return
      }
      setLoading(true)
      try {
        setUrl(await speak(plain(text)))
      } catch (error) {
        onError(`Read-aloud failed: ${(error as Error).message}`)
      } finally {
        setLoading(false)
      }
    },
    player: url ? (
      // biome-ignore lint/a11y/useMediaCaption: spoken copy of the text shown above
      <audio ref={audio} class="chat-audio" src={url} controls aria-label="Read-aloud audio" />
    ) : null,
  }
}
