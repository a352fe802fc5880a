import type { Runnable } from './slot-extras'

/**
 * Why a slot cannot run on this machine, from the API's `runnable` verdict: one line (the reason
 * without its per-backend parenthesis), and each backend's own reason folded under "Why".
 */
export function CannotRun({ runnable }: { runnable: Runnable }) {
  const refused = runnable.backends.filter((b) => !b.ok && b.reason)
  const headline =
    (refused.length ? runnable.reason?.replace(/\s*\([\s\S]*\)\s*$/, '') : runnable.reason) ||
    'no backend of this slot runs on this machine'
  return (
    <div class="cannot-run">
      <p>
        <strong>Cannot run here:</strong> {headline}.
      </p>
      {refused.length ? (
        <details>
          <summary>Why</summary>
          <ul class="cannot-run-why">
            {refused.map((b) => (
              <li key={b.backend}>
                <strong>{b.backend}</strong>: {b.reason}
              </li>
            ))}
          </ul>
        </details>
      ) : null}
    </div>
  )
}
