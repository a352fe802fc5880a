/**
 * `svc models forget <id>`: drops a ref from every list (`POST /api/models/<id>/forget`). A local
 * file's ref goes and the file stays where it is, whether it is still there or not; a pulled ref goes
 * with its download. Refused while a slot holds it, and for curated ids (docs/models.md#forgetting-a-model).
 */
import { callApi } from '../api-client'
import { type CliContext, UsageError } from '../context'
import { modelError } from '../model-suggestion'
import { parseOptions } from '../parse-options'

export async function forget(args: string[], ctx: CliContext): Promise<number> {
  const usage = 'usage: svc models forget <id>'
  const { positionals } = parseOptions('svc models forget', usage, args, {})
  const id = positionals[0]
  if (!id || positionals.length > 1)
    throw new UsageError(
      'svc models forget',
      id ? `unexpected argument ${positionals[1]}` : 'forget which model?',
      usage,
    )
  const res = await callApi<{ id: string; forgotten: true; deleted: boolean }>(
    ctx,
    `/api/models/${encodeURIComponent(id)}/forget`,
    { method: 'POST' },
  )
  if (res.status !== 200) throw await modelError(ctx, res, id)
  ctx.stdout.write(
    res.body.deleted ? `forgot ${res.body.id} and deleted its download\n` : `forgot ${res.body.id}\n`,
  )
  return 0
}
