import { readErrorBody, SvcError } from '@svc/core'
import { listModels } from './models'
import { apiFailure, postJson, type SvcApi } from './svc-api'

/**
 * Loads a chat model the picker lists, for the page's Load button, and resolves once it answers.
 *
 * 1. As a request would: Ollama's load form on the API (`POST /api/generate` with a model and no
 *    prompt, apps/api/src/ollama/lifecycle.ts). Any token that may chat may use it, and it loads only
 *    what a request could (a slot with `load_on_request`, a model a slot already holds).
 * 2. Refused with 409 (the slot does not load on request), the slot's own load
 *    (`POST /api/slots/<slot>/load?wait=true`: the slot's default for a slot name, else the ref),
 *    which needs a caller that may manage slots (auth off, or an admin token).
 * 3. Refused that (401/403): 403 `auth.forbidden` "ask an admin to load <model>" — never a command.
 *
 * Throws 404 `model.not_found` for a model svc does not list, 400 `request.invalid` for one that
 * does not chat; other API failures as the API said them. Idempotent: a loaded model resolves at once.
 */
export async function loadModel(api: SvcApi, model: string, signal: AbortSignal): Promise<void> {
  const list = await listModels(api, signal)
  const entry = list.models.find((m) => m.id === model)
  if (!entry) throw new SvcError('model.not_found', `svc does not offer "${model}" here`, { param: 'model' })
  if (!list.chat.includes(model))
    throw new SvcError('request.invalid', `"${model}" is not a chat model`, { param: 'model' })
  if (entry.loaded) return

  const asked = await api.call('/api/generate', postJson({ model, stream: false }, signal))
  if (asked.ok) {
    await asked.body?.cancel()
    return
  }
  if (asked.status !== 409) throw await apiFailure(asked, api.hasToken)
  await asked.body?.cancel()

  // The slot to load: the one the entry names or holds it, else the first chat slot listed.
  const slot =
    entry.slot ??
    list.models.find((m) => m.slot !== null && m.id === m.slot && list.chat.includes(m.id))?.slot ??
    null
  if (!slot) throw forbidden(model)
  // A slot's own name loads what its file says (its default); a ref loads that ref.
  const body = entry.id === slot ? {} : { model: entry.model ?? entry.id }
  const res = await api.call(`/api/slots/${encodeURIComponent(slot)}/load?wait=true`, postJson(body, signal))
  if (res.ok) {
    await res.body?.cancel()
    return
  }
  if (res.status === 401 || res.status === 403) {
    const said = readErrorBody(await res.text().catch(() => ''), res.statusText)
    // `hub.unauthorized` (a gated model) is the Hub's refusal, not the chat app's scope.
    if (!said.code || said.code.startsWith('auth.')) throw forbidden(model)
    throw new SvcError('upstream.error', said.message, { status: res.status })
  }
  throw await apiFailure(res, api.hasToken)
}

function forbidden(model: string): SvcError {
  return new SvcError('auth.forbidden', `ask an admin to load ${model}`, { param: 'model' })
}
