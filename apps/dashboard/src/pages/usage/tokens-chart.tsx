import type { DayBar } from './usage-data'

const WIDTH = 960
const HEIGHT = 200
/** Room above the tallest bar (the top of the scale), in the drawing's units. */
const HEADROOM = 20

/**
 * Tokens per day as stacked bars (prompt below, completion above), drawn to scale from the numbers
 * the API gave. Each bar carries its day and counts (a tooltip, and `data-day`/`data-tokens`); the
 * picture's name says the total, and the text under it the totals per kind.
 *
 * The axis words (the top of the scale, the dates) are HTML beside the drawing, not SVG text: the
 * drawing scales to the card's width, and text inside it would shrink with it (about 4 px on a phone).
 */
export function TokensChart({ bars }: { bars: readonly DayBar[] }) {
  const top = Math.max(...bars.map((b) => b.prompt + b.completion), 0)
  const max = Math.max(1, top)
  // A date under every `step`-th bar and under the last, never two that would overlap.
  const step = Math.ceil(bars.length / 8)
  const dated = (i: number) => i === bars.length - 1 || (i % step === 0 && bars.length - 1 - i >= step / 2)
  const dates = bars.flatMap((_, i) => (dated(i) ? [i] : []))
  const slot = WIDTH / Math.max(1, bars.length)
  const scale = (n: number) => (n / max) * (HEIGHT - HEADROOM)
  const total = bars.reduce((sum, b) => sum + b.prompt + b.completion, 0)
  return (
    <figure class="usage-chart">
      <p class="usage-axis usage-top">{top.toLocaleString('en')} tokens</p>
      <svg
        viewBox={`0 0 ${WIDTH} ${HEIGHT}`}
        role="img"
        aria-label={`Tokens per day: ${total.toLocaleString('en')} in ${bars.length} days`}
      >
        <line x1={0} x2={WIDTH} y1={HEADROOM} y2={HEADROOM} class="usage-topline" />
        <line x1={0} x2={WIDTH} y1={HEIGHT} y2={HEIGHT} class="usage-baseline" />
        {bars.map((b, i) => {
          const x = i * slot + slot * 0.15
          const w = slot * 0.7
          const hp = scale(b.prompt)
          const hc = scale(b.completion)
          const label = `${b.day}: ${(b.prompt + b.completion).toLocaleString('en')} tokens (${b.prompt.toLocaleString('en')} prompt, ${b.completion.toLocaleString('en')} completion)`
          return (
            <g key={b.day} class="usage-day" data-day={b.day} data-tokens={b.prompt + b.completion}>
              <title>{label}</title>
              <rect x={x} y={HEIGHT - hp} width={w} height={hp} class="usage-prompt" />
              <rect x={x} y={HEIGHT - hp - hc} width={w} height={hc} class="usage-completion" />
            </g>
          )
        })}
      </svg>
      <div class="usage-dates" aria-hidden="true">
        {dates.map((i, k) => (
          <span
            key={bars[i]!.day}
            // Every other date but the last can go on a narrow screen (content.css).
            class={k % 2 === 1 && k < dates.length - 1 ? 'usage-axis usage-date-extra' : 'usage-axis'}
            // The first and last dates end at the card's edges; the others sit under their bar.
            style={
              dates.length > 1 && k === dates.length - 1
                ? { right: 0 }
                : k === 0
                  ? { left: 0 }
                  : { left: `${(((i + 0.5) * slot) / WIDTH) * 100}%`, transform: 'translateX(-50%)' }
            }
          >
            {bars[i]!.day.slice(5)}
          </span>
        ))}
      </div>
      <figcaption>
        <span class="usage-key usage-prompt-key" aria-hidden="true" /> prompt{' '}
        <span class="usage-key usage-completion-key" aria-hidden="true" /> completion (UTC days)
      </figcaption>
    </figure>
  )
}
