import type { ChatFailure } from '@svc/ui'
import { useState } from 'preact/hooks'
import { Link } from '../../router'
import { LoadButton } from './load-button'
import { describeFailure } from './problem'

export interface ChatTarget {
  /** The slot the chat's model runs in (or would). */
  slot: string
  /** A ref to load into it; absent when the chat names the slot itself (its default or the picker). */
  model?: string | undefined
}

/**
 * A failed answer in the playground's words, with its fix: an empty slot gets Load (then Send again),
 * a context that is too small a link to the slot's settings, anything else Send again. Never a command.
 */
export function ChatProblem({
  failure,
  target,
  resend,
}: {
  failure: ChatFailure
  target: ChatTarget
  resend: () => void
}) {
  const [loaded, setLoaded] = useState(false)
  const { text, fix } = describeFailure(failure, target.slot)
  const again = (
    <button type="button" class="svc-button svc-button-primary" onClick={resend}>
      Send again
    </button>
  )
  return (
    <>
      <span>{loaded ? `${target.slot} is ready.` : text}</span>
      {fix === 'load' && !loaded ? (
        <LoadButton slot={target.slot} model={target.model} onLoaded={() => setLoaded(true)} />
      ) : fix === 'settings' ? (
        <Link href={`/?settings=${target.slot}`} class="svc-button">
          Open {target.slot}'s settings
        </Link>
      ) : (
        again
      )}
    </>
  )
}
