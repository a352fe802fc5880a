/**
 * A sparkline: a small inline SVG of a short series (the slot card's last minute, 12 buckets), one
 * bar per bucket. Bars, not a line: the buckets are counts and rates of separate 5 s spans, and one
 * busy bucket in a quiet minute stays visible. Twelve rectangles are less code than any chart
 * library's setup, and cost the first page nothing. A null (no request in that bucket) draws no bar:
 * a gap, not a zero. Its accessible name lists the values, so a screen reader (and a test) reads
 * what the bars show.
 */

export interface SparklineProps {
  /** Oldest first. */
  values: Array<number | null>
  /** What the values are, for the accessible name ("Requests per 5 s, last 60 s"). */
  label: string
  /** The drawing's own units (it stretches to its cell's width). */
  width?: number
  height?: number
}

export interface SparkBar {
  x: number
  y: number
  width: number
  height: number
}

/** One bar per positive value, scaled to the largest (at least 1) inside the box; gaps for the rest. */
export function sparkBars(values: Array<number | null>, width: number, height: number): SparkBar[] {
  const finite = values.filter((v): v is number => typeof v === 'number' && Number.isFinite(v))
  const max = Math.max(1, ...finite)
  const slot = values.length ? width / values.length : 0
  const bars: SparkBar[] = []
  values.forEach((v, i) => {
    if (typeof v !== 'number' || !Number.isFinite(v) || v <= 0) return
    const h = Math.max(1.5, (v / max) * (height - 1))
    bars.push({ x: i * slot + slot * 0.15, y: height - h, width: slot * 0.7, height: h })
  })
  return bars
}

export function Sparkline({ values, label, width = 120, height = 24 }: SparklineProps) {
  const said = values.map((v) => (typeof v === 'number' ? String(Math.round(v * 10) / 10) : '–')).join(', ')
  return (
    <svg
      class="sparkline"
      role="img"
      aria-label={`${label}: ${said}`}
      height={height}
      viewBox={`0 0 ${width} ${height}`}
      preserveAspectRatio="none"
    >
      <line class="sparkline-base" x1="0" y1={height - 0.5} x2={width} y2={height - 0.5} />
      {sparkBars(values, width, height).map((b) => (
        <rect key={b.x} x={b.x} y={b.y} width={b.width} height={b.height} />
      ))}
    </svg>
  )
}
