import { allowanceText } from '../allowance-text'
import { useChat } from '../store'

/** One line under the message box with what the person has left, when they have a quota. */
export function AllowanceNote() {
  const allowance = useChat((s) => s.allowance)
  const text = allowanceText(allowance)
  return text ? (
    <p class="chat-allowance" role="status" aria-label="Your allowance">
      {text}
    </p>
  ) : null
}
