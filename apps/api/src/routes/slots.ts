import { type SlotSnapshot, SvcError, validateSlotConfig } from '@svc/core'
import { writeSlotConfig } from '@svc/core/node'
import { Hono } from 'hono'
import * as v from 'valibot'
import type { SlotSystem } from '../slots/slot-system'
import { parseWith, readJson } from '../validate'

export const LoadBodySchema = v.strictObject({
  model: v.pipe(
    v.string('model must be a string'),
    v.trim(),
    v.minLength(1, 'model is required'),
    v.maxLength(4096),
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

export interface SlotView extends SlotSnapshot {
  config: {
    enabled: boolean
    default_model: string | null
    default_mmproj: string | null
    restart: string
    role: string | null
    url: string | null
  }
}

/**
 * Management of slots.
 *
 * - `GET /api/slots` → `{slots: SlotView[]}`; `GET /api/slots/:slot` → one; `GET /api/slots/:slot/logs` → `{lines}`
 * - `POST /api/slots/:slot/load {model, mmproj?}` → 202 with the slot (loading continues in the background);
 *   `?wait=true` answers 200 once ready, or the failure's error body.
 * - `POST /api/slots/:slot/unload` → 202 (`?wait=true`: 200 once offline).
 * - `PUT /api/slots/:slot` with the config as JSON (the TOML file's fields) → validated, written
 *   atomically to `<config>/slots/<slot>.toml`, applied at the next load. Creates a custom slot.
 */
export function slotRoutes(deps: { slots: SlotSystem; configDir: string }) {
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
        role: config.role ?? null,
        url: config.url ?? null,
      },
    }
  }
  const wants = (query: Record<string, string>) => {
    const q = parseWith(WaitQuerySchema, query)
    return q.wait === 'true' || q.wait === '1'
  }

  return new Hono()
    .get('/', (c) => c.json({ slots: manager.names().map(view) }))
    .get('/:slot', (c) => c.json(view(c.req.param('slot'))))
    .get('/:slot/logs', (c) => c.json({ lines: manager.get(c.req.param('slot')).logs() }))
    .post('/:slot/load', async (c) => {
      const name = c.req.param('slot')
      manager.get(name)
      const wait = wants(c.req.query())
      const { model, mmproj } = await readJson(c, LoadBodySchema)
      const loading = manager.load(name, model, mmproj ? { mmproj } : undefined)
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
      const body = await readJson(c, v.record(v.string(), v.unknown()))
      const result = validateSlotConfig(name, body, `slots/${name}.toml`)
      if (!result.ok) {
        throw new SvcError('request.invalid', result.error.message, { param: result.error.field })
      }
      await writeSlotConfig(deps.configDir, result.config)
      deps.slots.configure(result.config)
      return c.json(view(name), 200)
    })
}

/** Lets an already-settled promise (a resolution error) win a race against "still loading". */
function tick(): Promise<'pending'> {
  return new Promise((resolve) => setTimeout(() => resolve('pending'), 50))
}
