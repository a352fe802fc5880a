import type { Conversation, Message } from '../server/store/types'
import type { ModelList } from '../server/upstream/models'
import { type AnswerEvent, ApiError, answerEvents, client, expectOk, toApiError } from './api'
import { type Me, store, withMessage } from './store'

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

/** Reads `/v1/models` through the chat server; picks a loaded chat model when none is chosen. */
export async function refreshModels(): Promise<void> {
  try {
    const models = await expectOk<ModelList>(await client.api.models.$get())
    store.set((s) => ({ models, modelsError: null, model: s.model || pickModel(models, s.current) }))
  } catch (error) {
    store.set({ modelsError: error instanceof Error ? error.message : String(error) })
  }
}

function pickModel(models: ModelList, current: Conversation | null): string {
  if (current?.model && models.chat.includes(current.model)) return current.model
  const loaded = models.models.find((m) => m.loaded && models.chat.includes(m.id))
  return loaded?.id ?? models.chat[0] ?? ''
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
  store.set({ current: null })
}

async function ensureConversation(): Promise<Conversation> {
  const { current, model, draftSystem } = store.get()
  if (current) return current
  const body = await expectOk<{ conversation: Conversation }>(
    await client.api.conversations.$post({ json: { model, system: draftSystem } }),
  )
  store.set({ current: body.conversation, draftSystem: '' })
  history.replaceState(null, '', `#/c/${body.conversation.id}`)
  return body.conversation
}

let answering: AbortController | null = null

/** Runs one answer stream into the open conversation; returns when it has ended. */
async function stream(conversationId: string, request: (signal: AbortSignal) => Promise<Response>) {
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
    if (!controller.signal.aborted) fail(error)
  } finally {
    if (frame !== null) cancelAnimationFrame(frame)
    answering = null
    store.set({ streaming: null })
    // The server has the final word (stopped, interrupted, saved content): read it back.
    await reload(conversationId)
    void refreshConversations()
  }

  function apply(event: AnswerEvent) {
    const current = store.get().current
    if (!current || current.id !== conversationId) return
    if (event.type === 'start') {
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
    }
  }
}

async function reload(id: string): Promise<void> {
  try {
    const res = await client.api.conversations[':id'].$get({ param: { id } })
    if (!res.ok) return
    const body = (await res.json()) as { conversation: Conversation }
    if (store.get().current?.id === id) store.set({ current: body.conversation })
  } catch {
    // the page will show what it had
  }
}

/** Sends a user message (with uploaded image ids) and streams the answer. */
export async function send(content: string, attachments: string[]): Promise<void> {
  try {
    const conversation = await ensureConversation()
    const model = store.get().model
    await stream(conversation.id, (signal) =>
      client.api.conversations[':id'].messages.$post(
        { param: { id: conversation.id }, json: { content, model, attachments } },
        { init: { signal } },
      ),
    )
  } catch (error) {
    fail(error)
  }
}

export async function regenerate(): Promise<void> {
  const current = store.get().current
  if (!current) return
  const model = store.get().model
  await stream(current.id, (signal) =>
    client.api.conversations[':id'].regenerate.$post(
      { param: { id: current.id }, json: { model } },
      { init: { signal } },
    ),
  )
}

/** Replaces an earlier message of yours and continues the conversation from it. */
export async function edit(message: Message, content: string): Promise<void> {
  const current = store.get().current
  if (!current) return
  const model = store.get().model
  await stream(current.id, (signal) =>
    client.api.conversations[':id'].messages[':messageId'].edit.$post(
      { param: { id: current.id, messageId: message.id }, json: { content, model } },
      { init: { signal } },
    ),
  )
}

/** Stop: ends the browser's request and tells the server (which stops the model) as well. */
export async function stop(): Promise<void> {
  const id = store.get().streaming
  answering?.abort()
  if (id) await client.api.conversations[':id'].stop.$post({ param: { id } }).catch(() => undefined)
}

export async function generateImage(prompt: string, size: string | undefined): Promise<void> {
  try {
    const conversation = await ensureConversation()
    store.set({ streaming: conversation.id })
    const res = await client.api.conversations[':id'].images.$post({
      param: { id: conversation.id },
      json: { prompt, ...(size ? { size } : {}) },
    })
    const body = await expectOk<{ user: Message; assistant: Message }>(res)
    if (body.assistant.status === 'error' && body.assistant.error) fail(body.assistant.error)
  } catch (error) {
    fail(error)
  } finally {
    const id = store.get().streaming
    store.set({ streaming: null })
    if (id) await reload(id)
    void refreshConversations()
  }
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

export function chooseModel(model: string): void {
  store.set({ model })
}

/** Uploads an image to attach; answers its id. */
export async function upload(file: File): Promise<{ id: string; mime: string }> {
  const res = await client.api.files.$post(undefined, {
    init: { body: file, headers: { 'content-type': file.type || 'application/octet-stream' } },
  })
  const body = await expectOk<{ file: { id: string; mime: string } }>(res)
  return body.file
}

/** Voice input: the recording's transcript. */
export async function transcribe(recording: Blob): Promise<string> {
  const form = new FormData()
  form.set('file', recording, recording.type.includes('ogg') ? 'recording.ogg' : 'recording.webm')
  const res = await client.api.audio.transcriptions.$post(undefined, { init: { body: form } })
  return (await expectOk<{ text: string }>(res)).text
}

/** Read-aloud: the spoken text as a playable blob URL (the caller revokes it). */
export async function speak(text: string): Promise<string> {
  const res = await client.api.audio.speech.$post({ json: { input: text.slice(0, 4096) } })
  if (!res.ok) throw await toApiError(res)
  return URL.createObjectURL(await res.blob())
}

export { ApiError }
