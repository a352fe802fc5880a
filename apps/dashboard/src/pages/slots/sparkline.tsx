/**
 * A sparkline: a small inline SVG of a short series (the slot card's last minute, 12 buckets). A
 * polyline of 12 points is less code than any chart library's setup, and costs the first page nothing.
 * Null values (no request in that bucket) are gaps, not zeros. Its accessible name lists the values,
 * so a screen reader (and a test) reads what the line shows.
 */

export interface SparklineProps {
  /** Oldest first. */
  values: Array<number | null>
  /** What the values are, for the accessible name ("Requests per 5 s, last minute"). */
  label: string
  /** Width and height in px. */
  width?: number
  height?: number
}

/** The polyline segments (runs of non-null values) as SVG point lists, scaled into the box. */
export function sparkPaths(values: Array<number | null>, width: number, height: number): string[] {
  const finite = values.filter((v): v is number => typeof v === 'number' && Number.isFinite(v))
  const max = Math.max(1, ...finite)
  const step = values.length > 1 ? width / (values.length - 1) : 0
  const runs: string[] = []
  let run: string[] = []
  values.forEach((v, i) => {
    if (typeof v !== 'number' || !Number.isFinite(v)) {
      if (run.length) runs.push(run.join(' '))
      run = []
      return
    }
    const x = (i * step).toFixed(1)
    const y = (height - 1 - (v / max) * (height - 2)).toFixed(1)
    run.push(`${x},${y}`)
  })
  if (run.length) runs.push(run.join(' '))
  return runs
}

export function Sparkline({ values, label, width = 120, height = 24 }: SparklineProps) {
  const runs = sparkPaths(values, width, height)
  const said = values.map((v) => (typeof v === 'number' ? String(Math.round(v * 10) / 10) : '–')).join(', ')
  // Stretched to its cell's width (the strokes keep their thickness); a lone point is a round dot.
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
      {runs.map((points) => {
        if (points.includes(' ')) return <polyline key={points} points={points} />
        const [x, y] = points.split(',').map(Number) as [number, number]
        return <line key={points} class="sparkline-dot" x1={x - 0.01} y1={y} x2={x + 0.01} y2={y} />
      })}
    </svg>
  )
}
