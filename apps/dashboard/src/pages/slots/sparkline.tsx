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

export function Sparkline({ values, label, width = 96, height = 24 }: SparklineProps) {
  const runs = sparkPaths(values, width, height)
  const said = values.map((v) => (typeof v === 'number' ? String(Math.round(v * 10) / 10) : '–')).join(', ')
  return (
    <svg
      class="sparkline"
      role="img"
      aria-label={`${label}: ${said}`}
      width={width}
      height={height}
      viewBox={`0 0 ${width} ${height}`}
    >
      <line class="sparkline-base" x1="0" y1={height - 0.5} x2={width} y2={height - 0.5} />
      {runs.map((points) =>
        points.includes(' ') ? (
          <polyline key={points} points={points} />
        ) : (
          <circle key={points} cx={points.split(',')[0]} cy={points.split(',')[1]} r="1.5" />
        ),
      )}
    </svg>
  )
}
