import type { Connection } from '../store/live-state'
import { useLive } from '../store/use-live'

const WORDS: Record<Connection, string> = {
  connecting: 'Connecting…',
  open: 'Live',
  reconnecting: 'Reconnecting…',
  unauthorized: 'Not allowed',
}

/** The live stream's state as a dot and a word (the word carries it; the dot only repeats it). */
export function ConnectionIndicator() {
  const connection = useLive((s) => s.connection)
  return (
    <span
      class="connection"
      data-connection={connection}
      role="status"
      aria-label={`Live updates: ${WORDS[connection]}`}
    >
      <span class="connection-dot" aria-hidden="true" />
      {WORDS[connection]}
    </span>
  )
}
