export interface ChatInputProps {
  /** The box's accessible name (it has no visible label): "Message", "Image prompt". */
  label: string
  value: string
  placeholder: string
  onInput: (value: string) => void
  /** Enter without Shift: send. Shift+Enter adds a line; Enter that ends an IME composition does not send. */
  onSend: () => void
}

/** The message box of a chat: a three-line textarea where Enter sends and Shift+Enter breaks the line. */
export function ChatInput({ label, value, placeholder, onInput, onSend }: ChatInputProps) {
  return (
    <textarea
      aria-label={label}
      class="svc-chat-input"
      rows={3}
      value={value}
      placeholder={placeholder}
      onInput={(event) => onInput((event.target as HTMLTextAreaElement).value)}
      onKeyDown={(event) => {
        if (event.key === 'Enter' && !event.shiftKey && !event.isComposing) {
          event.preventDefault()
          onSend()
        }
      }}
    />
  )
}
