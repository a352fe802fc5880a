import type { ChatModel, ModelList } from '../server/upstream/models'

const WAITS = new Set(['pulling', 'starting', 'warming'])

/** Why Send is disabled, in the page's words, and the model a Load button next to it would load. */
export interface SendBlock {
  text: string
  /** The chosen model, when loading it is the fix (the page offers Load). */
  load?: string
}

/**
 * Why Send is disabled for `model`; null when it may be sent. A slot that is loading may be sent to
 * (svc holds the request until the slot is ready); one that is offline or unloading may not: the
 * page offers Load instead. Never names a command.
 */
export function sendBlock(models: ModelList | null, model: string): SendBlock | null {
  if (!models) return { text: 'Reading the models…' }
  if (models.chat.length === 0) return { text: 'svc offers no chat model yet: ask an admin to load one.' }
  if (!model) return { text: 'Choose a model.' }
  const entry = models.models.find((m) => m.id === model)
  if (!entry || entry.loaded || (entry.state && WAITS.has(entry.state))) return null
  return { text: `${model} is not loaded.`, load: model }
}

/** Whether `entry` answers now (loaded), is on its way (loading), or needs a Load first. */
export function loadState(entry: ChatModel | undefined): 'loaded' | 'loading' | 'not loaded' {
  if (!entry || entry.loaded) return 'loaded'
  return entry.state && WAITS.has(entry.state) ? 'loading' : 'not loaded'
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
 * Whether to offer image mode: a listed model serves images (the API lists the image slot's models
 * only where they can run, docs/api.md `/v1/models`).
 */
export function offersImages(models: ModelList | null): boolean {
  return Boolean(models?.models.some((m) => m.capabilities?.includes('images')))
}

/**
 * Whether a helper model (read-aloud's `tts`, voice input's `stt`) can answer now or once it has
 * loaded; the controls that need it are offered only then.
 */
export function usable(model: ChatModel | null | undefined): boolean {
  return Boolean(model && (model.loaded || (model.state && WAITS.has(model.state))))
}
