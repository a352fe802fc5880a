import type { Conversation, Message } from '../server/store/types'
import { ensureConversation, refreshConversations, reload, undoConversation } from './actions'
import { client, expectOk, toApiError } from './api'
import { pageText } from './page-text'
import { store } from './store'

/**
 * Image mode: generates from `prompt` in the open conversation. A failed generation in a conversation
 * made for it is not kept (no failed "New chat" in the list): the prompt goes back to the box
 * (`failed`) and the reason shows above it. In an existing conversation the failed turn stays, with
 * its reason in place.
 */
export async function generateImage(
  prompt: string,
  size: string | undefined,
  failed: () => void,
): Promise<void> {
  store.set({ notice: null })
  let made: { conversation: Conversation; created: boolean } | undefined
  let failure: unknown
  try {
    made = await ensureConversation()
    store.set({ streaming: made.conversation.id })
    const res = await client.api.conversations[':id'].images.$post({
      param: { id: made.conversation.id },
      json: { prompt, ...(size ? { size } : {}) },
    })
    const body = await expectOk<{ user: Message; assistant: Message }>(res)
    if (body.assistant.status === 'error') failure = new Error(body.assistant.error ?? 'the image failed')
  } catch (error) {
    failure = error
  } finally {
    store.set({ streaming: null })
  }
  if (failure !== undefined) {
    if (made?.created) {
      await undoConversation(made.conversation.id)
      failed()
    }
    const message = failure instanceof Error ? failure.message : String(failure)
    store.set({ notice: { kind: 'error', text: `The image could not be made: ${pageText(message)}` } })
  }
  if (made && !(failure !== undefined && made.created)) await reload(made.conversation.id)
  void refreshConversations()
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
