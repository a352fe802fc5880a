import {
  SLOT_NAME_PATTERN,
  type SlotLiveMetrics,
  type SlotSnapshot,
  SvcError,
  validateSlotConfig,
} from '@svc/core'
import { writeSlotConfig } from '@svc/core/node'
import { Hono } from 'hono'
import * as v from 'valibot'
import type { ModelPulls } from '../slots/model-pulls'
import type { SlotActivity } from '../slots/slot-activity'
import type { SlotSystem } from '../slots/slot-system'
import { parseWith, readJson } from '../validate'

export const LoadBodySchema = v.strictObject({
  model: v.pipe(
    v.string('model must be a string'),
    v.trim(),
    v.minLength(1, 'model is required'),
    v.maxLength(4096),
  ),
  /** With a URL: what the pulled file must hash to (checked before it is used). */
  sha256: v.optional(
    v.pipe(
      v.string('sha256 must be a string'),
      v.regex(/^[0-9a-fA-F]{64}$/, 'sha256 must be 64 hex digits'),
      v.toLowerCase(),
    ),
  ),
  /** A vision projector (local path or http(s) URL) for an llm model named by path or URL. */
  mmproj: v.optional(
    v.pipe(
      v.string('mmproj must be a string'),
      v.trim(),
      v.minLength(1, 'mmproj must not be empty'),
      v.maxLength(4096),
    ),
  ),
})

const WaitQuerySchema = v.object({
  wait: v.optional(v.picklist(['true', 'false', '1', '0'], 'wait must be true or false')),
})

const CreateSlotSchema = v.looseObject({
  name: v.pipe(
    v.string('name must be a string'),
    v.regex(SLOT_NAME_PATTERN, 'a lower-case name of a-z, 0-9, - and _ (at most 32), starting with a letter'),
  ),
})

export interface SlotView extends SlotSnapshot {
  config: {
    enabled: boolean
    default_model: string | null
    default_mmproj: string | null
    restart: string
    max_restarts: number
    role: string | null
    ctx_size: number | null
    args: string[]
    url: string | null
  }
  /** Live figures of the last minute (also pushed as `slot.metrics` events). */
  metrics: SlotLiveMetrics | null
}

/**
 * Management of slots.
 *
 * - `GET /api/slots` → `{slots: SlotView[]}`; `GET /api/slots/:slot` → one (logs: slot-logs.ts)
 * - `POST /api/slots/:slot/load {model, sha256?, mmproj?}` → 202 with the slot (loading continues in the background);
 *   `?wait=true` answers 200 once ready, or the failure's error body.
 * - `POST /api/slots/:slot/unload` → 202 (`?wait=true`: 200 once offline).
 * - `PUT /api/slots/:slot` with the config as JSON (the TOML file's fields) → validated, written
 *   atomically to `<config>/slots/<slot>.toml`, applied at the next load. Creates a custom slot.
 * - `POST /api/slots` `{name, provider, …config}` → 201: creates a custom slot; 400 `request.invalid`
 *   (param `name`) when a slot of that name exists, so a create never overwrites.
 *
 * Validation errors name the field in `param` (`provider`, `url`, `model.default`, …).
 */
export function slotRoutes(deps: {
  slots: SlotSystem
  configDir: string
  activity?: SlotActivity
  pulls?: ModelPulls
}) {
  const { manager } = deps.slots
  const view = (name: string): SlotView => {
    const slot = manager.get(name)
    const config = manager.config(name)
    return {
      ...slot.snapshot(),
      config: {
        enabled: config.enabled,
        default_model: config.model.default ?? null,
        default_mmproj: config.model.mmproj ?? null,
        restart: config.restart,
        max_restarts: config.maxRestarts,
        role: config.role ?? null,
        ctx_size: config.ctxSize ?? null,
        args: config.args,
        url: config.url ?? null,
      },
      metrics: deps.activity?.current()[name] ?? null,
    }
  }
  const save = async (name: string, body: Record<string, unknown>) => {
    const result = validateSlotConfig(name, body, `slots/${name}.toml`)
    if (!result.ok) {
      throw new SvcError('request.invalid', result.error.message, { param: result.error.field })
    }
    await writeSlotConfig(deps.configDir, result.config)
    deps.slots.configure(result.config)
  }
  const wants = (query: Record<string, string>) => {
    const q = parseWith(WaitQuerySchema, query)
    return q.wait === 'true' || q.wait === '1'
  }

  return new Hono()
    .get('/', (c) => c.json({ slots: manager.names().map(view) }))
    .post('/', async (c) => {
      const { name, ...config } = await readJson(c, CreateSlotSchema)
      if (manager.has(name))
        throw new SvcError('request.invalid', `a slot named "${name}" already exists`, { param: 'name' })
      await save(name, config)
      return c.json(view(name), 201)
    })
    .get('/:slot', (c) => c.json(view(c.req.param('slot'))))
    .post('/:slot/load', async (c) => {
      const name = c.req.param('slot')
      manager.get(name)
      const wait = wants(c.req.query())
      const { model, sha256, mmproj } = await readJson(c, LoadBodySchema)
      // Two writers of one `.part` file would corrupt it: a pull from the Models page goes first.
      if (deps.pulls?.get(model))
        throw new SvcError('model.in_use', `"${model}" is being pulled: wait for it, or cancel the pull`, {
          param: 'model',
        })
      const loading = manager.load(name, model, {
        ...(sha256 ? { sha256 } : {}),
        ...(mmproj ? { mmproj } : {}),
      })
      if (wait) {
        await loading
        return c.json(view(name), 200)
      }
      // Resolution errors (unknown model, refused model) still answer this request.
      const early = await Promise.race([
        loading.then(
          () => null,
          (e: unknown) => e,
        ),
        tick(),
      ])
      if (
        early instanceof SvcError &&
        ['model.not_found', 'request.invalid', 'backend.unavailable'].includes(early.code)
      )
        throw early
      loading.catch(() => undefined) // the outcome is on the event stream and in lastError
      return c.json(view(name), 202)
    })
    .post('/:slot/unload', async (c) => {
      const name = c.req.param('slot')
      const unloading = manager.unload(name)
      if (wants(c.req.query())) {
        await unloading
        return c.json(view(name), 200)
      }
      unloading.catch(() => undefined)
      return c.json(view(name), 202)
    })
    .put('/:slot', async (c) => {
      const name = c.req.param('slot')
      await save(name, await readJson(c, v.record(v.string(), v.unknown())))
      return c.json(view(name), 200)
    })
}

/** Lets an already-settled promise (a resolution error) win a race against "still loading". */
function tick(): Promise<'pending'> {
  return new Promise((resolve) => setTimeout(() => resolve('pending'), 50))
}
