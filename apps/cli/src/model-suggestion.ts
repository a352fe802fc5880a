/**
 * A model id the API does not know, answered with the nearest one it does: `no model
 * "qwen3-0.6b-q8"; did you mean "qwen3-0.6b-q8_0"?`. The ids come from `GET /api/models` (every
 * curated, pulled and local model), compared by edit distance.
 */
import { type ApiResponse, apiError, callApi, errorCode } from './api-client'
import type { ModelView } from './api-types'
import type { CliContext, CliError } from './context'
import { CliError as Failure } from './context'
import { didYouMean } from './did-you-mean'

/**
 * The error for a failed answer about model `id`: for a 404 `model.not_found` of a name that is not a
 * path or URL, "no model "<id>"" with the nearest known id when one is close (and the API's own
 * message when none is); any other answer as `apiError` words it.
 */
export async function modelError(ctx: CliContext, res: ApiResponse<unknown>, id: string): Promise<CliError> {
  if (res.status !== 404 || errorCode(res) !== 'model.not_found' || /[/\\]/.test(id)) return apiError(res)
  const listed = await callApi<{ models: ModelView[] }>(ctx, '/api/models').catch(() => undefined)
  const ids = listed?.status === 200 ? listed.body.models.map((m) => m.id) : []
  const near = didYouMean(id, ids)
  if (near === undefined) return apiError(res)
  return new Failure(`no model "${id}"; did you mean "${near}"?`)
}
