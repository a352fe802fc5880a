import type { DayBar } from './usage-data'

const WIDTH = 960
const HEIGHT = 200
const AXIS = 48

/**
 * Tokens per day as stacked bars (prompt below, completion above), drawn to scale from the numbers
 * the API gave. Each bar carries its day and counts (a tooltip, and `data-day`/`data-tokens`); the
 * picture's name says the total, and the text under it the totals per kind.
 */
export function TokensChart({ bars }: { bars: readonly DayBar[] }) {
  const top = Math.max(...bars.map((b) => b.prompt + b.completion), 0)
  const max = Math.max(1, top)
  // A date under every `step`-th bar and under the last, never two that would overlap.
  const step = Math.ceil(bars.length / 8)
  const dated = (i: number) => i === bars.length - 1 || (i % step === 0 && bars.length - 1 - i >= step / 2)
  const slot = (WIDTH - AXIS) / Math.max(1, bars.length)
  const scale = (n: number) => (n / max) * (HEIGHT - 20)
  const total = bars.reduce((sum, b) => sum + b.prompt + b.completion, 0)
  return (
    <figure class="usage-chart">
      <svg
        viewBox={`0 0 ${WIDTH} ${HEIGHT + 20}`}
        role="img"
        aria-label={`Tokens per day: ${total.toLocaleString('en')} in ${bars.length} days`}
      >
        <text x={0} y={12} class="usage-axis">
          {top.toLocaleString('en')}
        </text>
        <line x1={AXIS} x2={WIDTH} y1={HEIGHT} y2={HEIGHT} class="usage-baseline" />
        {bars.map((b, i) => {
          const x = AXIS + i * slot + slot * 0.15
          const w = slot * 0.7
          const hp = scale(b.prompt)
          const hc = scale(b.completion)
          const label = `${b.day}: ${(b.prompt + b.completion).toLocaleString('en')} tokens (${b.prompt.toLocaleString('en')} prompt, ${b.completion.toLocaleString('en')} completion)`
          return (
            <g key={b.day} class="usage-day" data-day={b.day} data-tokens={b.prompt + b.completion}>
              <title>{label}</title>
              <rect x={x} y={HEIGHT - hp} width={w} height={hp} class="usage-prompt" />
              <rect x={x} y={HEIGHT - hp - hc} width={w} height={hc} class="usage-completion" />
              {dated(i) ? (
                <text x={x + w / 2} y={HEIGHT + 15} text-anchor="middle" class="usage-axis">
                  {b.day.slice(5)}
                </text>
              ) : null}
            </g>
          )
        })}
      </svg>
      <figcaption>
        <span class="usage-key usage-prompt-key" aria-hidden="true" /> prompt{' '}
        <span class="usage-key usage-completion-key" aria-hidden="true" /> completion (UTC days)
      </figcaption>
    </figure>
  )
}
