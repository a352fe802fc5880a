import { useId, useState } from 'preact/hooks'

export interface TokenPromptProps {
  /** Tries a token; resolves with an error message when it is refused. */
  onSubmit: (token: string) => Promise<string | null>
  error?: string | null
}

/**
 * Shown when auth is on and nobody is signed in (the dashboard was opened directly, not through the
 * proxy). The token stays in this tab's sessionStorage only.
 */
export function TokenPrompt({ onSubmit, error: initial }: TokenPromptProps) {
  const id = useId()
  const [value, setValue] = useState('')
  const [error, setError] = useState<string | null>(initial ?? null)
  const [busy, setBusy] = useState(false)
  return (
    <main class="signin">
      <h1>Sign in to svc</h1>
      <p>
        Authentication is on. Paste an API token (<code>svc token create --scope admin</code>), or open the
        dashboard through the reverse proxy to sign in there.
      </p>
      <form
        onSubmit={async (event) => {
          event.preventDefault()
          setBusy(true)
          setError(await onSubmit(value.trim()))
          setBusy(false)
        }}
      >
        <label for={id}>API token</label>
        <input
          id={id}
          type="password"
          autocomplete="off"
          spellcheck={false}
          value={value}
          onInput={(e) => setValue((e.target as HTMLInputElement).value)}
          aria-describedby={error ? `${id}-error` : undefined}
          aria-invalid={error ? true : undefined}
          required
        />
        {error ? (
          <p id={`${id}-error`} class="field-error" role="alert">
            {error}
          </p>
        ) : null}
        <p class="hint">Kept in this browser tab only (sessionStorage), sent as a Bearer token.</p>
        <button type="submit" class="svc-button svc-button-primary" disabled={busy || !value.trim()}>
          Sign in
        </button>
      </form>
    </main>
  )
}
