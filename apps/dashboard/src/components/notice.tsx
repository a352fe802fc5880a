/** A page's standing note (why the controls below are disabled); nothing when there is none. */
export function Notice({ text }: { text: string | null | undefined }) {
  return text ? (
    <p class="notice" role="note">
      {text}
    </p>
  ) : null
}
