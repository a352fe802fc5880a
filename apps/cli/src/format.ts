/** Renders rows as a left-aligned text table with a header. */
export function table(header: string[], rows: (string | number | null | undefined)[][]): string {
  const cells = [
    header,
    ...rows.map((r) => r.map((c) => (c === null || c === undefined || c === '' ? '-' : String(c)))),
  ]
  const widths = header.map((_, i) => Math.max(...cells.map((r) => (r[i] ?? '').length)))
  return `${cells.map((r) => r.map((c, i) => (i === r.length - 1 ? c : (c ?? '').padEnd(widths[i] ?? 0))).join('  ')).join('\n')}\n`
}

export function bytes(n: number | null | undefined): string {
  if (n === null || n === undefined) return '?'
  const units = ['B', 'KB', 'MB', 'GB', 'TB']
  let v = n
  let i = 0
  while (v >= 1000 && i < units.length - 1) {
    v /= 1000
    i++
  }
  return `${v >= 100 || i === 0 ? v.toFixed(0) : v.toFixed(1)} ${units[i]}`
}

/** `[#########-----------] 45% 290 MB / 639 MB` */
export function progressBar(done: number, total: number | null, width = 30): string {
  if (!total) return `${bytes(done)}`
  const ratio = Math.min(1, done / total)
  const filled = Math.round(ratio * width)
  return `[${'#'.repeat(filled)}${'-'.repeat(width - filled)}] ${Math.floor(ratio * 100)}% ${bytes(done)} / ${bytes(total)}`
}
