/**
 * `svc models forget <id>`: drops a ref from every list (`POST /api/models/<id>/forget`). A local
 * file's ref goes and the file stays where it is, whether it is still there or not; a pulled ref goes
 * with its download. Refused while a slot holds it, and for curated ids (docs/models.md#forgetting-a-model).
 */
import { apiError, callApi } from '../api-client'
import { type CliContext, CliError } from '../context'

export async function forget(args: string[], ctx: CliContext): Promise<number> {
  const id = args[0]
  if (!id || args.length > 1) throw new CliError('usage: svc models forget <id>', 2)
  const res = await callApi<{ id: string; forgotten: true; deleted: boolean }>(
    ctx,
    `/api/models/${encodeURIComponent(id)}/forget`,
    { method: 'POST' },
  )
  if (res.status !== 200) throw apiError(res)
  ctx.stdout.write(
    res.body.deleted ? `forgot ${res.body.id} and deleted its download\n` : `forgot ${res.body.id}\n`,
  )
  return 0
}
