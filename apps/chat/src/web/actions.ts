import type { Conversation, Message } from '../server/store/types'
import { type AnswerEvent, ApiError, answerEvents, client, expectOk } from './api'
import { refreshModels, showFailure } from './model-actions'
import { type Me, store, withMessage } from './store'

export { chooseModel, loadModel, refreshModels } from './model-actions'

/** Failures the page shows as a toast; set by the app at start. */
let report: (message: string) => void = (message) => console.error(message)
export function onError(handler: (message: string) => void): void {
  report = handler
}

function fail(error: unknown): void {
  report(error instanceof Error ? error.message : String(error))
}

/** Loads who we are, the models and the conversation list; then follows the URL's hash. */
export async function init(): Promise<void> {
  try {
    const me = await expectOk<Me>(await client.api.me.$get())
    store.set({ me })
  } catch (error) {
    store.set({ fatal: error instanceof Error ? error.message : String(error) })
    return
  }
  await Promise.all([refreshModels(), refreshConversations()])
  await followHash()
}

export async function refreshConversations(): Promise<void> {
  const q = store.get().query.trim()
  try {
    const body = await expectOk<{ conversations: Conversation[] }>(
      await client.api.conversations.$get({ query: q ? { q } : {} }),
    )
    store.set({ conversations: body.conversations })
  } catch (error) {
    fail(error)
  }
}

export function search(query: string): void {
  store.set({ query })
  void refreshConversations()
}

/** Opens the conversation the hash names (`#/c/<id>`), or a new chat. */
export async function followHash(): Promise<void> {
  const id = /^#\/c\/([\w-]+)$/.exec(location.hash)?.[1]
  if (!id) {
    store.set({ current: null })
    return
  }
  if (store.get().current?.id === id) return
  try {
    const body = await expectOk<{ conversation: Conversation }>(
      await client.api.conversations[':id'].$get({ param: { id } }),
    )
    const models = store.get().models
    store.set({
      current: body.conversation,
      notice: null,
      ...(body.conversation.model && models?.chat.includes(body.conversation.model)
        ? { model: body.conversation.model }
        : {}),
    })
  } catch (error) {
    fail(error)
    location.hash = '#/'
  }
}

export function newChat(): void {
  location.hash = '#/'
  store.set({ current: null, notice: null })
}

/** The open conversation, or a new one made for this turn (`created`: undo it if the turn is refused). */
export async function ensureConversation(): Promise<{ conversation: Conversation; created: boolean }> {
  const { current, model, draftSystem } = store.get()
  if (current) return { conversation: current, created: false }
  const body = await expectOk<{ conversation: Conversation }>(
    await client.api.conversations.$post({ json: { model, system: draftSystem } }),
  )
  store.set({ current: body.conversation })
  history.replaceState(null, '', `#/c/${body.conversation.id}`)
  return { conversation: body.conversation, created: true }
}

/**
 * A conversation made for a turn that was refused or failed: deleted again, so no empty or failed
 * "New chat" is left in the list; the page goes back to a new chat (the system prompt kept).
 */
export async function undoConversation(id: string): Promise<void> {
  await client.api.conversations[':id'].$delete({ param: { id } }).catch(() => undefined)
  if (store.get().current?.id === id) {
    history.replaceState(null, '', '#/')
    store.set({ current: null })
  }
  void refreshConversations()
}

/** How an answer stream ended: whether the server took the turn, and why it failed if it did. */
interface Outcome {
  started: boolean
  failure?: { error: unknown; code: string | null }
}

let answering: AbortController | null = null

/** Runs one answer stream into the open conversation; resolves when it has ended, with how. */
async function stream(
  conversationId: string,
  request: (signal: AbortSignal) => Promise<Response>,
): Promise<Outcome> {
  const outcome: Outcome = { started: false }
  const controller = new AbortController()
  answering = controller
  store.set({ streaming: conversationId })
  let assistantId: string | null = null
  let content = ''
  let reasoning = ''
  let frame: number | null = null
  const paint = () => {
    frame = null
    const current = store.get().current
    const message = current?.messages.find((m) => m.id === assistantId)
    if (current && message) store.set({ current: withMessage(current, { ...message, content, reasoning }) })
  }
  try {
    for await (const event of answerEvents(await request(controller.signal))) {
      apply(event)
    }
  } catch (error) {
    if (!controller.signal.aborted) outcome.failure = { error, code: null }
  } finally {
    if (frame !== null) cancelAnimationFrame(frame)
    answering = null
    store.set({ streaming: null })
    // The server has the final word (stopped, interrupted, saved content): read it back.
    if (outcome.started) await reload(conversationId)
    void refreshConversations()
  }
  return outcome

  function apply(event: AnswerEvent) {
    const current = store.get().current
    if (!current || current.id !== conversationId) return
    if (event.type === 'start') {
      outcome.started = true
      assistantId = event.assistant.id
      const kept = current.messages.filter((m) => m.seq < event.user.seq)
      store.set({ current: { ...current, messages: [...kept, event.user, event.assistant] } })
    } else if (event.type === 'delta') {
      content += event.content ?? ''
      reasoning += event.reasoning ?? ''
      frame ??= requestAnimationFrame(paint)
    } else {
      if (frame !== null) cancelAnimationFrame(frame)
      frame = null
      store.set({ current: withMessage(current, event.message), allowance: event.allowance ?? null })
      if (event.message.status === 'error') {
        outcome.failure = { error: new Error(event.message.error ?? ''), code: event.code ?? null }
      }
    }
  }
}

export async function reload(id: string): Promise<void> {
  try {
    const res = await client.api.conversations[':id'].$get({ param: { id } })
    if (!res.ok) return
    const body = (await res.json()) as { conversation: Conversation }
    if (store.get().current?.id === id) store.set({ current: body.conversation })
  } catch {
    // the page will show what it had
  }
}

/**
 * Sends a user message (with uploaded image ids) and streams the answer. A turn the server refuses
 * (before it is saved) leaves nothing behind: a conversation made for it is deleted again and
 * `refused` gives the text back to the message box.
 */
export async function send(content: string, attachments: string[], refused: () => void): Promise<void> {
  const model = store.get().model
  store.set({ notice: null })
  let made: { conversation: Conversation; created: boolean } | undefined
  try {
    made = await ensureConversation()
    const { conversation } = made
    const outcome = await stream(conversation.id, (signal) =>
      client.api.conversations[':id'].messages.$post(
        { param: { id: conversation.id }, json: { content, model, attachments } },
        { init: { signal } },
      ),
    )
    if (!outcome.started) {
      if (made.created) await undoConversation(conversation.id)
      refused()
    } else store.set({ draftSystem: '' })
    if (outcome.failure) showFailure(outcome.failure.error, model, outcome.failure.code)
  } catch (error) {
    if (made?.created) await undoConversation(made.conversation.id)
    refused()
    showFailure(error, model)
  }
}

export async function regenerate(): Promise<void> {
  const current = store.get().current
  if (!current) return
  const model = store.get().model
  store.set({ notice: null })
  const outcome = await stream(current.id, (signal) =>
    client.api.conversations[':id'].regenerate.$post(
      { param: { id: current.id }, json: { model } },
      { init: { signal } },
    ),
  )
  if (outcome.failure) showFailure(outcome.failure.error, model, outcome.failure.code)
}

/** Replaces an earlier message of yours and continues the conversation from it. */
export async function edit(message: Message, content: string): Promise<void> {
  const current = store.get().current
  if (!current) return
  const model = store.get().model
  store.set({ notice: null })
  const outcome = await stream(current.id, (signal) =>
    client.api.conversations[':id'].messages[':messageId'].edit.$post(
      { param: { id: current.id, messageId: message.id }, json: { content, model } },
      { init: { signal } },
    ),
  )
  if (outcome.failure) showFailure(outcome.failure.error, model, outcome.failure.code)
}

/** How long Stop waits for the server to end the answer before the page closes the stream itself (ms). */
const STOP_GRACE_MS = 5_000

/**
 * Stop: asks the server to stop the model; the server saves the answer as `stopped` and ends the
 * stream with its `done` event, which the page shows ("Stopped."). The page does not close the
 * stream first: its read-back of the conversation would then race the server's save and could show
 * the answer as still streaming. Only when the server does not answer, or the stream is still open
 * after {@link STOP_GRACE_MS}, does the page end its request itself.
 */
export async function stop(): Promise<void> {
  const id = store.get().streaming
  const controller = answering
  const asked = id
    ? await client.api.conversations[':id'].stop.$post({ param: { id } }).then(
        (res) => res.ok,
        () => false,
      )
    : false
  if (asked) setTimeout(() => controller?.abort(), STOP_GRACE_MS)
  else controller?.abort()
}

export async function rename(title: string): Promise<void> {
  await patch({ title })
}

export async function setSystem(system: string): Promise<void> {
  await patch({ system })
}

async function patch(change: { title?: string; system?: string }): Promise<void> {
  const current = store.get().current
  if (!current) return
  try {
    const body = await expectOk<{ conversation: Conversation }>(
      await client.api.conversations[':id'].$patch({ param: { id: current.id }, json: change }),
    )
    store.set((s) =>
      s.current?.id === current.id ? { current: { ...s.current, ...body.conversation } } : {},
    )
    void refreshConversations()
  } catch (error) {
    fail(error)
  }
}

export async function remove(id: string): Promise<void> {
  try {
    await expectOk(await client.api.conversations[':id'].$delete({ param: { id } }))
    if (store.get().current?.id === id) newChat()
    await refreshConversations()
  } catch (error) {
    fail(error)
  }
}

export { ApiError }
