/** The fields of a model row the Models page filters on. */
export interface FilterableModel {
  id: string
  provider: string
  role: string | null
  badge: string | null
  family: string | null
  offered: boolean
  present: boolean
  slot: string | null
}

export interface ModelFilter {
  /** Free text: id, provider, role, badge or family contains it (case-insensitive). */
  query: string
  /** One provider kind, or '' for all. */
  provider: string
  /** Also the models this machine cannot run. */
  showAll: boolean
  /** Ids being pulled right now (always shown). */
  pulling?: ReadonlySet<string>
}

export interface Filtered<T> {
  rows: T[]
  /**
   * Rows the search and provider match that the default view hides because this machine cannot run
   * them (counted whether `showAll` shows them or not: the toggle's label).
   */
  notOffered: number
}

/**
 * What the Models page lists. By default only what this machine can run (the API's `offered`), plus
 * whatever is on disk, held by a slot or being pulled (so a file can always be found and deleted);
 * `showAll` adds the rest. The count of the hidden rows labels the toggle.
 */
export function filterModels<T extends FilterableModel>(
  models: readonly T[],
  filter: ModelFilter,
): Filtered<T> {
  const q = filter.query.trim().toLowerCase()
  const rows: T[] = []
  let notOffered = 0
  for (const m of models) {
    if (filter.provider && m.provider !== filter.provider) continue
    if (
      q &&
      ![m.id, m.provider, m.role ?? '', m.badge ?? '', m.family ?? ''].some((f) =>
        f.toLowerCase().includes(q),
      )
    )
      continue
    const kept = m.offered || m.present || m.slot !== null || filter.pulling?.has(m.id) === true
    if (!kept) notOffered++
    if (kept || filter.showAll) rows.push(m)
  }
  return { rows, notOffered }
}

/** The provider kinds in the list, offered ones first, each once. */
export function providersOf(models: readonly FilterableModel[]): string[] {
  const offered = new Set(models.filter((m) => m.offered).map((m) => m.provider))
  const all = new Set(models.map((m) => m.provider))
  return [...all].sort((a, b) => Number(offered.has(b)) - Number(offered.has(a)) || a.localeCompare(b))
}
