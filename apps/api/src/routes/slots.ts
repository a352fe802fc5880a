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
  // Optional: the slot's default model, else (a remote slot) the first model the remote serves.
  model: v.optional(
    v.pipe(
      v.string('model must be a string'),
      v.trim(),
      v.minLength(1, 'model is required'),
      v.maxLength(4096),
    ),
  ),
  /** With a URL: what the pulled file must hash to (checked before it is used). */
  sha256: v.optional(
    v.pipe(
      v.string('sha256 must be a string'),
      v.regex(/^[0-9a-fA-F]{64}$/, 'sha256 must be 64 hex digits'),
      v.toLowerCase(),
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
    restart: string
    max_restarts: number
    role: string | null
    ctx_size: number | null
    args: string[]
    url: string | null
    urls: string[] | null
    replicas: number | null
    evict: string
  }
  /** Live figures of the last minute (also pushed as `slot.metrics` events). */
  metrics: SlotLiveMetrics | null
}

/**
 * Management of slots.
 *
 * - `GET /api/slots` → `{slots: SlotView[]}`; `GET /api/slots/:slot` → one (logs: slot-logs.ts)
 * - `POST /api/slots/:slot/load {model?, sha256?}` → 202 with the slot (loading continues in the background);
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
        restart: config.restart,
        max_restarts: config.maxRestarts,
        role: config.role ?? null,
        ctx_size: config.ctxSize ?? null,
        args: config.args,
        url: config.url ?? null,
        urls: config.urls ?? null,
        replicas: config.replicas ?? null,
        evict: config.evict,
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
      const { model, sha256 } = await readJson(c, LoadBodySchema)
      const named = model ?? manager.config(name).model.default ?? ''
      // Two writers of one `.part` file would corrupt it: a pull from the Models page goes first.
      if (deps.pulls?.get(named))
        throw new SvcError('model.in_use', `"${named}" is being pulled: wait for it, or cancel the pull`, {
          param: 'model',
        })
      // Resolution and admission (unknown model, a model this slot or machine cannot serve, not
      // enough memory) answer this request; only the load itself runs in the background.
      const { loading } = await manager.start(name, named, sha256 ? { sha256 } : {})
      if (wait) {
        await loading
        return c.json(view(name), 200)
      }
      loading.catch(() => undefined) // the outcome is on the event stream and in lastError
      // The load is queued behind the slot's previous work; one turn of the loop lets it begin, so the
      // 202 says `pulling`/`starting` rather than the `offline` it is about to leave.
      await new Promise((resolve) => setImmediate(resolve))
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
