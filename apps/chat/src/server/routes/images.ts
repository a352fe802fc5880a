import { SvcError } from '@svc/core'
import { Hono } from 'hono'
import type { ChatDeps } from '../deps'
import { ImageSchema } from '../http/schemas'
import { jsonBody } from '../http/validate'
import type { Attachment, Message, MessageStatus } from '../store/types'
import { apiFailure, postJson } from '../upstream/svc-api'
import { DEFAULT_TITLE, noConversation } from './conversations'

/**
 * `POST api/conversations/:id/images` {prompt, size?, n?, model?}: the image-generation mode. Saves
 * the prompt as a user turn, asks the API (`/v1/images/generations`, `b64_json`), stores each image
 * (the API's cache is evicted after days; a conversation keeps its pictures), and answers 201
 * `{user, assistant}` with the images as attachments. A failure of the API or the model is the
 * assistant turn's `error`, shown in place, not a failed request. Closing the request cancels it.
 */
export function imageRoutes(deps: ChatDeps) {
  const { store } = deps
  return new Hono().post('/:id/images', jsonBody(ImageSchema), async (c) => {
    const userId = c.get('user').id
    const conversation = store.conversations.summary(userId, c.req.param('id'))
    if (!conversation) throw noConversation(c.req.param('id'))
    const body = c.req.valid('json')
    // Refused before the model runs when the person has no room left; an image that does not fit
    // after all becomes the turn's error.
    deps.files.ensureRoom(userId, 1)
    const controller = deps.generations.begin(conversation.id)
    if (!controller) {
      throw new SvcError(
        'conversation.busy',
        'an answer is being written in this conversation; stop it first',
      )
    }
    const gone = () => controller.abort('client-gone')
    c.req.raw.signal.addEventListener('abort', gone)
    try {
      const { user, assistant } = store.db.transaction(() => {
        const user = store.messages.append(conversation.id, userId, {
          role: 'user',
          kind: 'image',
          content: body.prompt,
        })
        const assistant = store.messages.append(conversation.id, userId, {
          role: 'assistant',
          kind: 'image',
          status: 'streaming',
          model: body.model ?? 'img',
        })
        if (conversation.title === DEFAULT_TITLE) {
          store.conversations.update(userId, conversation.id, { title: `Image: ${body.prompt.slice(0, 50)}` })
        }
        return { user, assistant }
      })()
      let status: Exclude<MessageStatus, 'streaming'> = 'complete'
      let error: string | null = null
      const attachments: Attachment[] = []
      try {
        const request = {
          prompt: body.prompt,
          n: body.n,
          response_format: 'b64_json',
          ...(body.size ? { size: body.size } : {}),
          ...(body.model ? { model: body.model } : {}),
        }
        const res = await deps.api.call('/v1/images/generations', postJson(request, controller.signal))
        if (!res.ok) throw await apiFailure(res, deps.api.hasToken)
        const result = (await res.json()) as { data?: { b64_json?: string }[] }
        for (const image of result.data ?? []) {
          if (!image.b64_json) continue
          const file = await deps.files.save(userId, Buffer.from(image.b64_json, 'base64'), 'image/png')
          attachments.push({ file, mime: 'image/png' })
        }
        if (attachments.length === 0) throw new Error('the image service answered without an image')
      } catch (thrown) {
        status = controller.signal.aborted ? 'stopped' : 'error'
        error = controller.signal.aborted ? null : (thrown as Error).message
      }
      store.messages.finish(assistant.id, { status, content: '', reasoning: '', error, attachments })
      store.messages.attach(
        assistant.id,
        userId,
        attachments.map((a) => a.file),
      )
      store.conversations.touch(conversation.id)
      const final: Message = { ...assistant, status, error, attachments }
      return c.json({ user, assistant: final }, 201)
    } finally {
      deps.generations.end(conversation.id, controller)
      c.req.raw.signal.removeEventListener('abort', gone)
    }
  })
}
