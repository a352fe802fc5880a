import { apiError, callApi } from '../api-client'
import type { UsageBody } from '../api-types'
import { CliError, type Command, UsageError } from '../context'
import { suggestion } from '../did-you-mean'
import { table } from '../format'

const GROUPS = ['token', 'identity', 'slot', 'model', 'day', 'hour']

const HELP = `Usage: svc usage [--by token|identity|slot|model|day|hour] [--since DATE] [--until DATE] [--json]

Shows what was used, from the API's usage ledger (GET /api/usage): requests, prompt and
completion tokens, audio seconds transcribed, characters spoken and images made, per group
(default: per token) over [since, until) (ISO dates or times, UTC; default the last 30 days).
An admin token (SVC_TOKEN) sees everyone; any other token sees its own use. See docs/usage.md.
--url URL: the API to ask (else SVC_API_URL, default http://127.0.0.1:8080).`

export const usageCommand: Command = {
  name: 'usage',
  summary: 'show who used what (requests, tokens, audio, images)',
  help: HELP,
  api: true,
  async run(args, ctx) {
    const usage = 'usage: svc usage [--by GROUP] [--since DATE] [--until DATE] [--json]'
    const query = new URLSearchParams()
    let json = false
    for (let i = 0; i < args.length; i++) {
      const arg = args[i]!
      if (arg === '--json') {
        json = true
        continue
      }
      const match = /^--(by|since|until)(?:=(.*))?$/.exec(arg)
      if (!match) {
        const flag = arg.split('=')[0]!
        const near = suggestion(flag, ['--by', '--since', '--until', '--json'], false)
        throw new UsageError(
          'svc usage',
          `${flag.startsWith('-') ? 'unknown option' : 'unexpected argument'} ${flag}${near}`,
          usage,
        )
      }
      const value = match[2] ?? args[++i]
      if (value === undefined) throw new UsageError('svc usage', `--${match[1]} needs a value`, usage)
      if (match[1] === 'by' && !GROUPS.includes(value))
        throw new CliError(`--by must be one of ${GROUPS.join(', ')}`, 2)
      query.set(match[1] === 'by' ? 'group_by' : match[1]!, value)
    }
    const res = await callApi<UsageBody>(ctx, `/api/usage?${query}`)
    if (res.status !== 200) throw apiError(res)
    const body = res.body
    if (json) {
      ctx.stdout.write(`${JSON.stringify(body, null, 2)}\n`)
      return 0
    }
    const group = body.group_by
    const named = group === 'token'
    ctx.stdout.write(`Usage ${body.since.slice(0, 16)}Z to ${body.until.slice(0, 16)}Z, by ${group}\n`)
    const cells = (r: Record<string, string | number | null>) => [
      r.requests,
      r.prompt_tokens,
      r.completion_tokens,
      r.audio_seconds,
      r.characters,
      r.images,
    ]
    const head = [
      group.toUpperCase(),
      ...(named ? ['LABEL'] : []),
      'REQUESTS',
      'PROMPT',
      'COMPLETION',
      'AUDIO S',
      'CHARS',
      'IMAGES',
    ]
    const rows = body.rows.map((r) => [
      r[group] === '' ? `(no ${group})` : r[group],
      ...(named ? [r.label] : []),
      ...cells(r),
    ])
    rows.push(['total', ...(named ? [''] : []), ...cells(body.totals)])
    ctx.stdout.write(table(head, rows))
    return 0
  },
}
