import { useState } from 'preact/hooks'

export interface Submit {
  /** True while the action runs (the submit button is disabled). */
  busy: boolean
  /** The message of what the last run threw; cleared when the next one starts. */
  error: string | null
  /** Shows a failure that did not come from a submit (e.g. a microphone refused). */
  setError: (message: string | null) => void
  /** The form's `onSubmit`: no page load, then `action`. */
  onSubmit: (event: Event) => Promise<void>
}

/** A form that runs one async action per submit, with its busy flag and its error message. */
export function useSubmit(action: () => Promise<void>): Submit {
  const [busy, setBusy] = useState(false)
  const [error, setError] = useState<string | null>(null)
  const onSubmit = async (event: Event) => {
    event.preventDefault()
    setError(null)
    setBusy(true)
    try {
      await action()
    } catch (err) {
      setError((err as Error).message)
    } finally {
      setBusy(false)
    }
  }
  return { busy, error, setError, onSubmit }
}
