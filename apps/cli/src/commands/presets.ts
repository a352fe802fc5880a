import type { PresetView } from '@svc/providers/models'
import { apiError, callApi } from '../api-client'
import { type Command, UsageError } from '../context'
import { suggestion } from '../did-you-mean'
import { table } from '../format'

const HELP = `Usage: svc presets [ls] [--json]

Lists the presets per model in use (<config>/presets.toml, GET /api/presets): each name a client
may send as model (an alias, or a variant of another preset), what it runs, the name its engine is
loaded under, its context size, engine args and request fields (defaults, force, strip). When the
file on disk is refused (a wrong field, a variant cycle, an unknown model), the last good presets
are listed and the problem is printed to stderr, exit status 1. See docs/models.md#presets.
--url URL: the API to ask (else SVC_API_URL, default http://127.0.0.1:8080).`

interface PresetsBody {
  file: string | null
  presets: PresetView[]
  problem: string | null
}

/** `{a = 1, b = {c = true}}` in the file's own words, short. */
function fields(values: Record<string, unknown>): string {
  const entries = Object.entries(values)
  return entries.length === 0 ? '' : entries.map(([k, v]) => `${k}=${JSON.stringify(v)}`).join(' ')
}

export const presetsCommand: Command = {
  name: 'presets',
  summary: 'list the presets per model (aliases, variants, their settings)',
  help: HELP,
  api: true,
  async run(args, ctx) {
    const rest = args[0] === 'ls' || args[0] === 'list' ? args.slice(1) : args
    const json = rest.includes('--json')
    const unknown = rest.find((a) => a !== '--json')
    if (unknown !== undefined)
      throw new UsageError(
        'svc presets',
        `${unknown.startsWith('-') ? 'unknown option' : 'unexpected argument'} ${unknown}${suggestion(unknown, ['--json'], false)}`,
        'usage: svc presets [ls] [--json]',
      )
    const res = await callApi<PresetsBody>(ctx, '/api/presets')
    if (res.status !== 200) throw apiError(res)
    const body = res.body
    if (json) ctx.stdout.write(`${JSON.stringify(body, null, 2)}\n`)
    else
      ctx.stdout.write(
        table(
          ['NAME', 'RUNS', 'LOADED AS', 'CTX', 'ARGS', 'DEFAULTS', 'FORCE', 'STRIP'],
          body.presets.map((p) => [
            p.name,
            p.variant_of ? `${p.model} (variant of ${p.variant_of})` : p.model,
            p.load_as,
            p.ctx_size,
            p.args.join(' '),
            fields(p.defaults),
            fields(p.force),
            p.strip.join(','),
          ]),
        ),
      )
    if (body.problem === null) return 0
    ctx.stderr.write(`presets not applied (the last good ones are in use): ${body.problem}\n`)
    return 1
  },
}
