/**
 * The model library's view of the Hugging Face Hub: a search of its GGUF repos (`listModels`, sorted
 * by downloads) and one repo's quants (`listFiles`, grouped by `groupQuants`) with the facts of its
 * GGUF header, read remotely (`gguf()`: HTTP Range requests for the first megabytes of one file, never
 * the weights) — architecture, layers, training context and what the KV cache takes. Whether a quant
 * fits this machine is the caller's to decide (`quantNeed` gives the bytes; apps know the budget).
 *
 * Every call goes to `hub.hubUrl` with `hub.accessToken` (the library reads neither `HF_ENDPOINT`
 * nor `HF_TOKEN`: svc passes them). Failures are `SvcError`s (`hubError`, as for
 * resolving a Hub name).
 */

import { gguf } from '@huggingface/gguf'
import { listFiles, listModels } from '@huggingface/hub'
import { formatBytes } from '@svc/core'
import { contextSize, kvCacheBytes } from '../../memory/estimate'
import type { GgufFacts } from '../../memory/gguf-metadata'
import type { HubConfig } from './hub-config'
import { hubError, trackErrors } from './hub-errors'
import { groupQuants, type RepoQuant, type RepoQuants } from './repo-quants'

/** Where the Hub is and who asks (`HF_ENDPOINT`, `HF_TOKEN`): the store's own Hub config. */
export type HubAccess = HubConfig

/** One search hit. */
export interface HubModelHit {
  /** `owner/repo`. */
  id: string
  downloads: number
  likes: number
  /** ISO date of the last commit, or null when the Hub did not say. */
  updated: string | null
  /** `false`, or how access is granted (`auto`, `manual`): its files need an approved `HF_TOKEN`. */
  gated: false | 'auto' | 'manual'
  private: boolean
  /** The Hub's pipeline tag (`text-generation`, `image-text-to-text`, …). */
  task: string | null
}

/** At most this many hits per search (the Hub pages by 500; a person reads a few dozen). */
export const SEARCH_LIMIT_MAX = 100

/**
 * Searches the Hub's GGUF model repos for `query` (words of the repo name), most downloaded first.
 * Throws `SvcError`: 502 when the Hub cannot be reached or answers oddly, 429-like refusals as such.
 */
export async function searchHub(
  hub: HubAccess,
  options: { query: string; limit?: number },
): Promise<HubModelHit[]> {
  const limit = Math.min(Math.max(1, options.limit ?? 20), SEARCH_LIMIT_MAX)
  const hits: HubModelHit[] = []
  const tracked = trackErrors(hub.fetch)
  try {
    for await (const m of listModels({
      ...access(hub),
      fetch: tracked.fetch,
      search: { query: options.query, tags: ['gguf'] },
      sort: 'downloads',
      limit,
    })) {
      const updated = m.updatedAt instanceof Date && !Number.isNaN(m.updatedAt.getTime())
      hits.push({
        id: m.name,
        downloads: m.downloads ?? 0,
        likes: m.likes ?? 0,
        updated: updated ? m.updatedAt.toISOString() : null,
        gated: m.gated ?? false,
        private: m.private ?? false,
        task: m.task ?? null,
      })
    }
  } catch (error) {
    throw hubError(error, { ...said(hub, tracked.last), repo: '', what: `searching for "${options.query}"` })
  }
  return hits
}

/** What one GGUF header says, for people and for the memory estimate. */
export interface RepoHeader {
  /** The file whose header was read. */
  file: string
  architecture: string | null
  /** Transformer blocks (`<arch>.block_count`). */
  layers: number | null
  /** Training context in tokens (`<arch>.context_length`). */
  contextLength: number | null
  /** The facts the KV-cache estimate needs. */
  facts: GgufFacts
}

export interface HubRepoInfo extends RepoQuants {
  repo: string
  /** Null when the repo has no GGUF, or its header could not be read (`headerError` says why). */
  header: RepoHeader | null
  headerError: string | null
}

/**
 * A repo's GGUF quants and the header facts of one of its files (the default quant's first part).
 * The header is read after the file list; a header that cannot be read leaves `header` null and
 * says why, the list stays. Throws `SvcError` when the repo cannot be listed (missing, private).
 */
export async function hubRepoInfo(hub: HubAccess, repo: string): Promise<HubRepoInfo> {
  const files: { path: string; size: number; lfs?: { size: number } }[] = []
  const tracked = trackErrors(hub.fetch)
  try {
    for await (const f of listFiles({
      ...access(hub),
      fetch: tracked.fetch,
      repo: { type: 'model', name: repo },
      recursive: true,
    })) {
      if (f.type === 'file') files.push({ path: f.path, size: f.size, ...(f.lfs ? { lfs: f.lfs } : {}) })
    }
  } catch (error) {
    throw hubError(error, { ...said(hub, tracked.last), repo, what: `listing the files of ${repo}` })
  }
  const grouped = groupQuants(repo, files)
  const first = grouped.quants.find((q) => q.quant === grouped.defaultQuant)?.files[0]
  if (!first) return { repo, ...grouped, header: null, headerError: null }
  try {
    return { repo, ...grouped, header: await readRemoteHeader(hub, repo, first), headerError: null }
  } catch (error) {
    const why = error instanceof Error ? error.message : String(error)
    return { repo, ...grouped, header: null, headerError: `the header of ${first} could not be read: ${why}` }
  }
}

/** Reads one file's GGUF header through `/resolve/` (which redirects to the CDN) with Range requests. */
async function readRemoteHeader(hub: HubAccess, repo: string, path: string): Promise<RepoHeader> {
  const url = `${hub.hubUrl}/${repo}/resolve/main/${path.split('/').map(encodeURIComponent).join('/')}`
  const { metadata } = await gguf(url, {
    ...(hub.fetch ? { fetch: hub.fetch } : {}),
    // fetch drops Authorization when the redirect leaves the Hub's origin, as the Hub's clients do.
    ...(hub.accessToken ? { additionalFetchHeaders: { Authorization: `Bearer ${hub.accessToken}` } } : {}),
  })
  const kv = metadata as Record<string, unknown>
  const arch = typeof kv['general.architecture'] === 'string' ? kv['general.architecture'] : ''
  const num = (key: string): number | null => {
    const v = kv[`${arch}.${key}`]
    return typeof v === 'number' ? v : typeof v === 'bigint' ? Number(v) : null
  }
  const kvHeads = kv[`${arch}.attention.head_count_kv`]
  const facts: GgufFacts = {
    architecture: arch,
    blockCount: num('block_count'),
    contextLength: num('context_length'),
    embeddingLength: num('embedding_length'),
    headCount: num('attention.head_count'),
    headCountKv: Array.isArray(kvHeads) ? kvHeads.map(Number) : num('attention.head_count_kv'),
    keyLength: num('attention.key_length'),
    valueLength: num('attention.value_length'),
  }
  return {
    file: path,
    architecture: arch || null,
    layers: facts.blockCount,
    contextLength: facts.contextLength,
    facts,
  }
}

/** What a load of one quant takes, as the memory budget would reckon it once pulled. */
export interface QuantNeed {
  bytes: number
  /** How it was reckoned, for people. */
  detail: string
}

/**
 * The memory a quant needs: its files (weights), the repo's smallest projector when it has one
 * (a vision repo's Hub name brings it along), and the KV cache for the context the slot would run
 * with (`ctxSize`/`args` as the slot's file says, else the model's training context) — the same
 * reckoning as `estimateLoad` for a file on disk.
 */
export function quantNeed(
  quant: Pick<RepoQuant, 'size'>,
  info: Pick<HubRepoInfo, 'header' | 'mmproj'>,
  slot: { ctxSize?: number; args?: readonly string[] } = {},
): QuantNeed {
  const parts = [`weights ${formatBytes(quant.size)}`]
  let bytes = quant.size
  const facts = info.header?.facts
  const ctx = facts ? contextSize(slot, facts) : null
  const kv = facts && ctx !== null ? kvCacheBytes(facts, ctx) : 0
  if (kv > 0) {
    bytes += kv
    parts.push(`KV cache ${formatBytes(kv)} (ctx ${ctx})`)
  }
  const projector = info.mmproj[0]
  if (projector) {
    bytes += projector.size
    parts.push(`projector ${formatBytes(projector.size)}`)
  }
  return { bytes, detail: parts.join(' + ') }
}

function access(hub: HubAccess) {
  return {
    hubUrl: hub.hubUrl,
    ...(hub.accessToken ? { accessToken: hub.accessToken } : {}),
    ...(hub.fetch ? { fetch: hub.fetch } : {}),
  }
}

/** What `hubError` needs to know of the call: the endpoint, whether a token went, what the Hub said. */
function said(hub: HubAccess, last: { code: string | null; message: string | null }) {
  return { hubUrl: hub.hubUrl, token: hub.accessToken !== undefined, code: last.code, message: last.message }
}
