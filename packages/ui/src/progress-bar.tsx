import { useMemo, useRef } from 'preact/hooks'
import { formatBytes, formatDuration, formatPercent } from './format'
import { createTransferRate } from './transfer-rate'

export interface ProgressBarProps {
  /** Bytes done so far. */
  done: number
  /** Total bytes; null when the server does not know (an indeterminate bar). */
  total: number | null
  /** When `done` was measured (epoch ms); successive values give the speed. Default: now. */
  at?: number
  /** The accessible name, e.g. `"Pulling qwen3-0.6b"`. */
  label: string
}

/**
 * A transfer's progress: a native `<progress>` (so assistive technology reads it) and a line with
 * bytes, percent, speed and time left. Speed is smoothed over the samples this instance has seen.
 */
export function ProgressBar({ done, total, at, label }: ProgressBarProps) {
  const rate = useRef(createTransferRate())
  const now = at ?? Date.now()
  // Sampled once per distinct measurement, not per render.
  const speed = useMemo(() => rate.current.sample(done, now), [done, now])
  const eta = rate.current.eta(done, total)
  const known = total !== null && total > 0
  const parts = [known ? `${formatBytes(done)} of ${formatBytes(total)}` : formatBytes(done)]
  if (known) parts.push(formatPercent(done / total))
  if (speed !== null) parts.push(`${formatBytes(speed)}/s`)
  if (eta !== null) parts.push(`${formatDuration(eta)} left`)
  return (
    <div class="svc-progress">
      <progress aria-label={label} value={known ? done : undefined} max={known ? total : undefined} />
      <span class="svc-progress-text">{parts.join(' · ')}</span>
    </div>
  )
}
