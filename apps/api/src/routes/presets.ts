import { Hono } from 'hono'
import type { PresetsState } from '../slots/presets-watch'
import { isAdmin, redactArgs, redactText } from '../views/redact'

/**
 * Presets, mounted at `/api/presets` (docs/models.md, "Presets").
 *
 * `GET /` → `{file, presets:[{name, variant_of, model, load_as, ctx_size, args, defaults, force,
 * strip}], problem}`: the presets in use (the last good `presets.toml`; `*` first when present) and
 * `problem`, why the file on disk is not what applies (TOML syntax, a wrong field, a variant cycle, a
 * model svc does not know: `<file>: preset "x": ctx_size: expected a positive integer, got "big"`),
 * null when it is. For callers other than admin, `file` is null and paths and secrets in `model` and
 * `args` are reduced, as for slots.
 */
export function presetRoutes(deps: { presets?: PresetsState }) {
  return new Hono().get('/', (c) => {
    const state = deps.presets
    const admin = isAdmin(c.get('principal'))
    const presets = (state?.table.list() ?? []).map((p) =>
      admin ? p : { ...p, model: redactText(p.model), args: redactArgs(p.args) },
    )
    const problem = state?.problem ?? null
    return c.json({
      file: admin ? (state?.file ?? null) : null,
      presets,
      problem: admin || problem === null ? problem : redactText(problem),
    })
  })
}
