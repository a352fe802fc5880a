import type { Conversation } from '../server/store/types'
import type { ModelList } from '../server/upstream/models'
import { ApiError, client, expectOk } from './api'
import { isContextError, pageText } from './page-text'
import { store } from './store'

/** Reads `/v1/models` through the chat server; picks a loaded chat model when none is chosen. */
export async function refreshModels(): Promise<void> {
  try {
    const models = await expectOk<ModelList>(await client.api.models.$get())
    store.set((s) => ({ models, modelsError: null, model: s.model || pickModel(models, s.current) }))
  } catch (error) {
    const words = pageText(error instanceof Error ? error.message : String(error))
    // The chat app's own credentials: only its administrator can fix them (never a command here).
    const fix =
      error instanceof ApiError && error.code === 'upstream.auth' && !words.includes('SVC_CHAT_API_TOKEN')
        ? ' Ask the administrator to set up the chat app’s token (SVC_CHAT_API_TOKEN).'
        : ''
    store.set({ modelsError: `${words}${fix}` })
  }
}

export function pickModel(models: ModelList, current: Conversation | null): string {
  if (current?.model && models.chat.includes(current.model)) return current.model
  const loaded = models.models.find((m) => m.loaded && models.chat.includes(m.id))
  return loaded?.id ?? models.chat[0] ?? ''
}

export function chooseModel(model: string): void {
  store.set({ model, notice: null })
}

/**
 * Load: asks the chat server to load `model` (as a request would, else the slot's own load when svc
 * lets the chat app) and waits until it answers; the picker and the button show "Loading…" meanwhile.
 * A chat app that may not load it says to ask an admin. Never throws.
 */
export async function loadModel(model: string): Promise<boolean> {
  store.set({ loading: model, notice: null })
  try {
    await expectOk(await client.api.models.load.$post({ json: { model } }))
    await refreshModels()
    return true
  } catch (error) {
    if (error instanceof ApiError && error.status === 403) store.set({ notice: { kind: 'forbidden', model } })
    else showFailure(error, model)
    await refreshModels()
    return false
  } finally {
    store.set({ loading: null })
  }
}

/**
 * Shows why a send did not get its answer, above the message box, with the fix the page offers:
 * Load for a model that is not loaded, New chat for a conversation longer than the model's context,
 * else the server's words (never a command).
 */
export function showFailure(error: unknown, model: string, code?: string | null): void {
  const message = error instanceof Error ? error.message : String(error)
  const why = code ?? (error instanceof ApiError ? error.code : null)
  if (why === 'model.not_loaded' || why === 'slot.offline' || why === 'slot.unavailable') {
    store.set({ notice: { kind: 'not-loaded', model } })
    void refreshModels()
  } else if (isContextError(why, message)) {
    store.set({ notice: { kind: 'context', model } })
  } else {
    store.set({ notice: { kind: 'error', text: pageText(message) } })
  }
}

/**
 * The dashboard's settings of `slot`, when the page knows where the dashboard is: behind svc's proxy
 * the chat app is `/chat/` and the dashboard the site's root. Null otherwise (no link is shown).
 */
export function dashboardSettings(slot: string | null): string | null {
  if (!slot) return null
  const at = location.pathname.lastIndexOf('/chat/')
  if (at < 0) return null
  return `${location.pathname.slice(0, at)}/?settings=${encodeURIComponent(slot)}`
}
