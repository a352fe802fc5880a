import {
  hasReplicas,
  isJsonObject,
  SLOT_NAME_PATTERN,
  type SlotConfig,
  type SlotFacts,
  type SlotLiveMetrics,
  SvcError,
  validateSlotConfig,
} from '@svc/core'
import { writeSlotConfig } from '@svc/core/node'
import { Hono } from 'hono'
import * as v from 'valibot'
import type { ModelPulls } from '../slots/model-pulls'
import type { SlotActivity } from '../slots/slot-activity'
import { createSlotFacts } from '../slots/slot-facts'
import type { SlotSystem } from '../slots/slot-system'
import { parseWith, readJson } from '../validate'
import { isAdmin, redactArgs, redactMaybe } from '../views/redact'
import { type SlotStatus, slotStatusFor } from '../views/slot-view'

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

const JsonObjectSchema = v.custom<Record<string, unknown>>(isJsonObject, 'the body must be a JSON object')

/**
 * A slot as `GET /api/slots` shows it: its status, the facts every face reads instead of working
 * them out (`serves`, `runnable`, `memory`, `context_size`: `slots/slot-facts.ts`), its config and
 * its live figures.
 */
export interface SlotView extends SlotStatus, SlotFacts {
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
    urls: string[] | null
    replicas: number | null
    /** How requests spread over its replicas (`cache`, `least-loaded`); null without replicas. */
    routing: string | null
    evict: string
  }
  /** Live figures of the last minute, with its 12 × 5 s `series` (also pushed as `slot.metrics` events). */
  metrics: SlotLiveMetrics | null
}

/**
 * Management of slots. What a caller sees depends on its scope (`views/slot-view.ts`): `upstream`,
 * `replicas[].url`, `config.url` and `config.urls` are admin-only, and messages and `config.args`
 * (secret values after flags like `--api-key`) are redacted for everyone else.
 *
 * - `GET /api/slots` → `{slots: SlotView[]}`; `GET /api/slots/:slot` → one (logs: slot-logs.ts). Each
 *   says what it `serves`, whether it is `runnable` here (with each backend's verdict), the `memory`
 *   its model holds and the `context_size` its upstream runs with.
 * - `POST /api/slots/:slot/load {model?, sha256?, mmproj?}` → 202 with the slot (loading continues in the background);
 *   no `model`: the slot file's default model, with the file's `sha256`/`mmproj` unless the body names them;
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
  const facts = createSlotFacts(deps.slots)
  const view = async (name: string, admin: boolean): Promise<SlotView> => {
    const config = manager.config(name)
    const known = (await facts.read([name])).get(name)!
    return viewOf(name, admin, config, known)
  }
  const viewOf = (name: string, admin: boolean, config: SlotConfig, known: SlotFacts): SlotView => {
    return {
      ...slotStatusFor(deps.slots.status(name), admin),
      ...known,
      config: {
        enabled: config.enabled,
        // A model or projector named by path or URL: reduced like messages for other scopes.
        default_model: admin ? (config.model.default ?? null) : redactMaybe(config.model.default),
        default_mmproj: admin ? (config.model.mmproj ?? null) : redactMaybe(config.model.mmproj),
        restart: config.restart,
        max_restarts: config.maxRestarts,
        role: config.role ?? null,
        ctx_size: config.ctxSize ?? null,
        args: admin ? config.args : redactArgs(config.args),
        url: admin ? (config.url ?? null) : null,
        urls: admin ? (config.urls ?? null) : null,
        replicas: config.replicas ?? null,
        routing: hasReplicas(config) ? config.routing.policy : null,
        evict: config.evict,
      },
      metrics: deps.activity?.current()[name] ?? null,
    }
  }
  const save = async (name: string, body: Record<string, unknown>) => {
    const parent = manager.has(name) ? manager.spareOf(name) : undefined
    if (parent !== undefined)
      throw new SvcError(
        'request.invalid',
        `slot "${name}" is a spare of "${parent}" (opened to hold another model beside it) and has no settings of its own: change "${parent}"'s`,
        { param: 'slot' },
      )
    const result = validateSlotConfig(name, body, `slots/${name}.toml`)
    if (!result.ok) {
      throw new SvcError('request.invalid', result.error.message, { param: result.error.field })
    }
    await writeSlotConfig(deps.configDir, result.config)
    deps.slots.configure(result.config)
    deps.slots.configProblems.delete(name)
  }
  const wants = (query: Record<string, string>) => {
    const q = parseWith(WaitQuerySchema, query)
    return q.wait === 'true' || q.wait === '1'
  }

  return new Hono()
    .get('/', async (c) => {
      const admin = isAdmin(c.get('principal'))
      const all = await facts.read()
      // A spare slot that came or went while the facts were read shows on the next read.
      const names = manager.names().filter((name) => all.has(name))
      return c.json({ slots: names.map((name) => viewOf(name, admin, manager.config(name), all.get(name)!)) })
    })
    .post('/', async (c) => {
      const { name, ...config } = await readJson(c, CreateSlotSchema)
      if (manager.has(name))
        throw new SvcError('request.invalid', `a slot named "${name}" already exists`, { param: 'name' })
      await save(name, config)
      return c.json(await view(name, isAdmin(c.get('principal'))), 201)
    })
    .get('/:slot', async (c) => c.json(await view(c.req.param('slot'), isAdmin(c.get('principal')))))
    .post('/:slot/load', async (c) => {
      const name = c.req.param('slot')
      manager.get(name) // 404 for an unknown slot before the body is read
      const wait = wants(c.req.query())
      const body = await readJson(c, LoadBodySchema)
      // No model named: the load the slot file describes (its default with its checksum and projector).
      const fallback: SlotConfig['model'] = body.model ? {} : manager.config(name).model
      const named = body.model ?? fallback.default ?? ''
      const sha256 = body.sha256 ?? fallback.sha256
      const mmproj = body.mmproj ?? fallback.mmproj
      // Two writers of one `.part` file would corrupt it: a pull from the Models page goes first.
      if (deps.pulls?.get(named))
        throw new SvcError('model.in_use', `"${named}" is being pulled: wait for it, or cancel the pull`, {
          param: 'model',
        })
      // Any transition of this slot from now on shows the load under way: listening before the start
      // cannot miss one that happens while the start is still being admitted.
      const moved = new AbortController()
      const firstMove = deps.slots.bus
        .once('slot.transition', (e) => e.slot === name, moved.signal)
        .catch(() => undefined)
      try {
        // Resolution and admission (unknown model, a model this slot or machine cannot serve, not
        // enough memory) answer this request, however long they take; only the load itself runs in
        // the background.
        const { loading } = await manager.start(name, named, {
          ...(sha256 ? { sha256 } : {}),
          ...(mmproj ? { mmproj } : {}),
        })
        if (wait) {
          await loading
          return c.json(await view(name, isAdmin(c.get('principal'))), 200)
        }
        loading.catch(() => undefined) // the outcome is on the event stream and in lastError
        // Answer once the slot has moved (its first transition) or the load settled, whichever comes
        // first — an event, not a timer — so the 202 shows the load under way.
        await Promise.race([
          loading.then(
            () => undefined,
            () => undefined,
          ),
          firstMove,
        ])
      } finally {
        moved.abort()
      }
      return c.json(await view(name, isAdmin(c.get('principal'))), 202)
    })
    .post('/:slot/unload', async (c) => {
      const name = c.req.param('slot')
      const unloading = manager.unload(name)
      const spareOf = manager.spareOf(name) ?? null
      if (wants(c.req.query())) {
        const last = await unloading
        // A spare slot goes once unloaded: its last snapshot is the answer.
        if (!manager.has(name)) return c.json({ ...last, spare_of: spareOf }, 200)
        return c.json(await view(name, isAdmin(c.get('principal'))), 200)
      }
      unloading.catch(() => undefined)
      return c.json(await view(name, isAdmin(c.get('principal'))), 202)
    })
    .put('/:slot', async (c) => {
      const name = c.req.param('slot')
      // Only "is it an object": validateSlotConfig checks every field (a record schema would copy
      // every key of a hostile body first).
      await save(name, await readJson(c, JsonObjectSchema))
      return c.json(await view(name, isAdmin(c.get('principal'))), 200)
    })
}
