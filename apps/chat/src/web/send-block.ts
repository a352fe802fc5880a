import type { ChatModel, ModelList } from '../server/upstream/models'

const WAITS = new Set(['pulling', 'starting', 'warming'])

/**
 * Why Send is disabled for `model`, in words a person can act on; null when it may be sent. A slot
 * that is loading may be sent to (svc holds the request until the slot is ready); one that is offline
 * or unloading may not.
 */
export function sendBlock(models: ModelList | null, model: string): string | null {
  if (!models) return 'Reading the models…'
  if (models.chat.length === 0)
    return 'svc offers no chat model. Load one in the dashboard or with `svc slot load primary --model …`.'
  if (!model) return 'Choose a model.'
  const entry = models.models.find((m) => m.id === model)
  if (!entry || entry.loaded || (entry.state && WAITS.has(entry.state))) return null
  const loadedOther = models.models.some((m) => m.loaded && models.chat.includes(m.id))
  const where = entry.slot ?? model
  const hint = loadedOther ? ' Choose a loaded model, or load' : ' Load'
  return `${model} is not loaded (${entry.state ?? 'no slot holds it'}).${hint} it in the dashboard or with \`svc slot load ${where} --model …\`.`
}

/**
 * Whether to offer image attachments for `model`: it has the API's `vision` capability, or its
 * capabilities are unknown (a hosted model: svc cannot tell, so the person may try).
 */
export function acceptsImages(models: ModelList | null, model: string): boolean {
  const entry = models?.models.find((m) => m.id === model)
  if (!entry) return false
  return entry.capabilities === null || entry.capabilities.includes('vision')
}

/**
 * Whether a helper model (read-aloud's `tts`, voice input's `stt`) can answer now or once it has
 * loaded; the controls that need it are offered only then.
 */
export function usable(model: ChatModel | null | undefined): boolean {
  return Boolean(model && (model.loaded || (model.state && WAITS.has(model.state))))
}
