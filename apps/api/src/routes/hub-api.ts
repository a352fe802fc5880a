import type { StatsFs } from 'node:fs'
import { statfs } from 'node:fs/promises'
import { dirname } from 'node:path'
import { formatBytes, type ModelEntry, SvcError } from '@svc/core'
import type { MemoryDevice } from '@svc/providers/memory'
import { type HubAccess, hubRepoInfo, quantNeed, SEARCH_LIMIT_MAX, searchHub } from '@svc/providers/models'
import { Hono } from 'hono'
import * as v from 'valibot'
import type { DeviceBudget } from '../slots/memory-budget'
import type { ModelPulls } from '../slots/model-pulls'
import type { SlotSystem } from '../slots/slot-system'
import { parseWith, readJson } from '../validate'

const SearchQuerySchema = v.object({
  q: v.optional(v.pipe(v.string(), v.maxLength(200)), ''),
  limit: v.optional(
    v.pipe(v.string(), v.toNumber(), v.integer(), v.minValue(1), v.maxValue(SEARCH_LIMIT_MAX)),
    '20',
  ),
})

const RepoQuerySchema = v.object({ slot: v.optional(v.pipe(v.string(), v.minLength(1)), 'primary') })

/** `owner/repo` as the Hub spells repo ids. */
const REPO_PART = /^[\w.-]{1,96}$/

const PullBodySchema = v.strictObject({ model: v.pipe(v.string(), v.minLength(1), v.maxLength(2048)) })

export interface HubApiDeps {
  slots: SlotSystem
  pulls?: ModelPulls
  /** Where the Hub is (`HF_ENDPOINT`) and the token (`HF_TOKEN`); absent: the Hub routes answer 404. */
  hub?: HubAccess
  paths: { stateDir: string }
}

/**
 * The model library, mounted at `/api/models` beside `models-api.ts`:
 *
 * - `GET /search?q=&limit=` → `{models:[{id, downloads, likes, updated, gated, private, task}]}`: the
 *   Hub's GGUF repos matching `q`, most downloaded first (`limit` 1–100, default 20).
 * - `GET /hub/:owner/:repo?slot=primary` → `{repo, architecture, context_length, layers, header_error,
 *   mmproj, default_quant, device, quants:[{quant, name, files, size, split, present, need, fits,
 *   reason}]}`: the repo's quants, each with the memory its load would take in `slot` (`need`, bytes)
 *   and whether that fits the slot's device budget (`fits`: null when no budget is known).
 * - `POST /pull {model}` → 202 `{model, status:"pulling", done, total}`: what `POST /:id/pull` does, for
 *   any name `ModelStore.resolve` takes (Hub names carry `/` and `:`); 200 `{status:"done"}` when on
 *   disk. Cancel and delete go through `DELETE /:id/pull` and `DELETE /:id` with the id
 *   percent-encoded (`hf.co%2Fowner%2Frepo%3AQ4_K_M`).
 * - `GET /disk` → `{models_bytes, models, local_bytes, free_bytes, total_bytes}`: bytes of the models
 *   svc downloaded that are on disk (and of local files it points at), and the state directory's file
 *   system.
 *
 * Hub failures: 404 `model.not_found` (no such repo), 401 `hub.unauthorized` (gated or private, or
 * `HF_TOKEN` refused), 429 `hub.rate_limited`, 502 `upstream.unavailable` (unreachable).
 */
export function hubApiRoutes(deps: HubApiDeps) {
  const hub = (): HubAccess => {
    if (!deps.hub) throw new SvcError('route.not_found', 'the Hugging Face Hub is not configured here')
    return deps.hub
  }
  return new Hono()
    .get('/search', async (c) => {
      const q = parseWith(SearchQuerySchema, c.req.query())
      const models = await searchHub(hub(), { query: q.q.trim(), limit: q.limit })
      return c.json({ models })
    })
    .get('/hub/:owner/:repo', async (c) => {
      const { owner, repo: name } = c.req.param()
      if (!REPO_PART.test(owner) || !REPO_PART.test(name))
        throw new SvcError('request.invalid', `"${owner}/${name}" is not a Hub repo id (owner/name)`, {
          param: 'repo',
        })
      const { slot } = parseWith(RepoQuerySchema, c.req.query())
      const config = deps.slots.manager.config(slot)
      const [info, device] = await Promise.all([
        hubRepoInfo(hub(), `${owner}/${name}`),
        deps.slots.memory.deviceOf(config).catch(() => undefined),
      ])
      const quants = await Promise.all(
        info.quants.map(async (q) => {
          const need = quantNeed(q, info, {
            ...(config.ctxSize !== undefined ? { ctxSize: config.ctxSize } : {}),
            args: config.args,
          })
          const known = await deps.slots.store.get(q.name)
          return {
            quant: q.quant,
            name: q.name,
            files: q.files,
            size: q.size,
            split: q.split,
            present: known ? complete(known) : false,
            need: need.bytes,
            ...fits(need, device),
          }
        }),
      )
      return c.json({
        repo: info.repo,
        architecture: info.header?.architecture ?? null,
        context_length: info.header?.contextLength ?? null,
        layers: info.header?.layers ?? null,
        header_error: info.headerError,
        mmproj: info.mmproj,
        default_quant: info.defaultQuant,
        device: device ? { id: device.id, label: device.label, budget: device.budgetBytes } : null,
        quants,
      })
    })
    .post('/pull', async (c) => {
      const { model } = await readJson(c, PullBodySchema)
      const entry = await deps.slots.store.resolve(model)
      if (complete(entry))
        return c.json(
          { model: entry.id, status: 'done' as const, done: entry.size ?? 0, total: entry.size ?? null },
          200,
        )
      if (!deps.pulls) throw new SvcError('route.not_found', 'pulls are not available here')
      const slot = deps.slots.manager.findByModel(entry.id)?.name
      if (slot)
        throw new SvcError('model.in_use', `slot "${slot}" is loading "${entry.id}"; its pull is under way`)
      const started = deps.pulls.start(entry)
      return c.json(
        { model: started.model, status: started.status, done: started.done, total: started.total },
        202,
      )
    })
    .get('/disk', async (c) => {
      let models = 0
      let modelsBytes = 0
      let localBytes = 0
      for (const m of await deps.slots.store.list()) {
        if (m.path === undefined) continue
        const bytes = (m.size ?? 0) + (m.mmproj?.path !== undefined ? (m.mmproj.size ?? 0) : 0)
        if (m.source === 'local') localBytes += bytes
        else {
          models++
          modelsBytes += bytes
        }
      }
      const fs = await statfsNearest(deps.paths.stateDir)
      return c.json({
        models,
        models_bytes: modelsBytes,
        local_bytes: localBytes,
        free_bytes: fs ? fs.bavail * fs.bsize : null,
        total_bytes: fs ? fs.blocks * fs.bsize : null,
      })
    })
}

/** `statfs` of `path`, else of its nearest existing parent (the state dir is made on first use). */
async function statfsNearest(path: string): Promise<StatsFs | undefined> {
  for (let at = path; ; at = dirname(at)) {
    const found = await statfs(at).catch(() => undefined)
    if (found || dirname(at) === at) return found
  }
}

/** Whether every file of the model is on disk (its projector too). */
function complete(m: ModelEntry): boolean {
  return m.path !== undefined && (!m.mmproj || m.mmproj.path !== undefined)
}

/** Whether `need` fits the slot's device budget, and why (not), for people. */
function fits(
  need: { bytes: number; detail: string },
  device: (MemoryDevice & Pick<DeviceBudget, 'freeBytes'>) | undefined,
): { fits: boolean | null; reason: string } {
  const needs = `needs ${formatBytes(need.bytes)} (${need.detail})`
  if (!device || device.budgetBytes === null)
    return { fits: null, reason: `${needs}; this machine's memory is not known, so nothing is refused` }
  const budget = `${device.label}'s budget of ${formatBytes(device.budgetBytes)}`
  if (need.bytes > device.budgetBytes) return { fits: false, reason: `${needs}: more than ${budget}` }
  if (device.freeBytes !== null && need.bytes > device.freeBytes)
    return {
      fits: true,
      reason: `${needs}: fits ${budget} once other slots unload (${formatBytes(Math.max(0, device.freeBytes))} free now)`,
    }
  return { fits: true, reason: `${needs}: fits ${budget}` }
}
