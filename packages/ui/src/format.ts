/** Human-readable figures shared by the progress bar, the slot cards and the model lists. */

const UNITS = ['B', 'KB', 'MB', 'GB', 'TB'] as const

/** `1536000` → `"1.5 MB"` (decimal units, as download tools and disks show them). */
export function formatBytes(bytes: number): string {
  if (!Number.isFinite(bytes) || bytes < 0) return '—'
  let value = bytes
  let unit = 0
  while (value >= 1000 && unit < UNITS.length - 1) {
    value /= 1000
    unit++
  }
  const digits = unit === 0 || value >= 100 ? 0 : 1
  return `${value.toFixed(digits)} ${UNITS[unit]}`
}

/** `3725` seconds → `"1 h 2 min"`, `75` → `"1 min 15 s"`, `9` → `"9 s"`. */
export function formatDuration(seconds: number): string {
  if (!Number.isFinite(seconds) || seconds < 0) return '—'
  const s = Math.round(seconds)
  if (s < 60) return `${s} s`
  const m = Math.floor(s / 60)
  if (m < 60) return s % 60 ? `${m} min ${s % 60} s` : `${m} min`
  const h = Math.floor(m / 60)
  if (h < 48) return m % 60 ? `${h} h ${m % 60} min` : `${h} h`
  return `${Math.floor(h / 24)} d ${h % 24} h`
}

/** `0.4567` → `"46%"`. */
export function formatPercent(fraction: number): string {
  return `${Math.floor(Math.max(0, Math.min(1, fraction)) * 100)}%`
}
