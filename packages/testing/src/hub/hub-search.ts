/**
 * `GET /api/models` of the Hub stand-in: search, filter, sort, limit, expand, paged by cursor. Pure:
 * takes the repos the caller may see and the query, returns one page and the next cursor.
 */
import { type HubRepo, modelInfo, pickExpanded } from './hub-repo'

/** The fields a listing returns when it names no `expand` (the Hub's default list projection). */
const LIST_FIELDS = [
  'likes',
  'trendingScore',
  'private',
  'downloads',
  'tags',
  'pipeline_tag',
  'library_name',
  'createdAt',
  'modelId',
]
const SORTS = new Set(['downloads', 'likes', 'createdAt', 'lastModified', 'trendingScore', 'id'])

export interface SearchPage {
  items: Record<string, unknown>[]
  /** The cursor of the next page, or undefined on the last. */
  next: string | undefined
}

/**
 * One page of the listing. Query: `search` (substring of the id, case-insensitive), `author`,
 * `filter` (repeated or comma-separated; every one must be a tag, the pipeline tag or the library),
 * `pipeline_tag`, `sort` (descending unless `direction=1`), `limit` (≤ 1000, default 1000 as the
 * Hub; pages are cut at `pageSize`), `expand` / `expand[]`, `full`, `cursor` (an offset). Throws
 * `Error('sort')` for a sort the Hub does not know (answered 400).
 */
export function searchModels(
  repos: readonly HubRepo[],
  query: URLSearchParams,
  pageSize: number,
): SearchPage {
  const search = query.get('search')?.toLowerCase()
  const author = query.get('author')?.toLowerCase()
  const filters = [...query.getAll('filter').flatMap((f) => f.split(','))].filter(Boolean)
  const pipeline = query.get('pipeline_tag')
  const expand = [...query.getAll('expand'), ...query.getAll('expand[]')]
  const full = query.get('full') === 'true' || query.get('full') === '1'
  const sort = query.get('sort')
  if (sort && !SORTS.has(sort)) throw new Error('sort')
  const limit = Math.min(Number(query.get('limit') ?? 1000) || 1000, 1000)
  const offset = Number(query.get('cursor') ?? 0) || 0

  let matched = repos
    .map((repo) => ({ repo, info: modelInfo(repo, false) }))
    .filter(({ repo, info }) => {
      const id = repo.id.toLowerCase()
      if (search && !id.includes(search)) return false
      if (author && id.split('/')[0] !== author) return false
      if (pipeline && info.pipeline_tag !== pipeline) return false
      const tags = new Set([...(info.tags as string[]), info.pipeline_tag, info.library_name])
      return filters.every((f) => tags.has(f))
    })
  if (sort) {
    const ascending = query.get('direction') === '1'
    const key = (info: Record<string, unknown>) => info[sort] as string | number
    matched = [...matched].sort((a, b) => {
      const [x, y] = [key(a.info), key(b.info)]
      const order = x < y ? -1 : x > y ? 1 : 0
      return ascending ? order : -order
    })
  }
  const wanted = matched.slice(0, limit)
  const page = wanted.slice(offset, offset + Math.min(pageSize, limit))
  const items = page.map(({ info }) => {
    if (expand.length > 0) return pickExpanded(info, expand)
    if (full) return info
    return pickExpanded(info, LIST_FIELDS)
  })
  const end = offset + page.length
  return { items, next: end < wanted.length ? String(end) : undefined }
}
