import { SvcError } from '@svc/core'
import type { Context } from 'hono'
import { Hono } from 'hono'
import { buildContext } from '../chat/context'
import { generate } from '../chat/generate'
import type { ChatDeps } from '../deps'
import { LOCAL_IDENTITY } from '../http/identity'
import { MAX_MESSAGE_BYTES, utf8Bytes } from '../http/limits'
import { EditSchema, RegenerateSchema, SendSchema } from '../http/schemas'
import { sseResponse } from '../http/sse'
import { jsonBody } from '../http/validate'
import type { ConversationSummary, Message } from '../store/types'
import { DEFAULT_TITLE, noConversation } from './conversations'

/**
 * Answers, streamed as Server-Sent Events (`start` {user?, assistant} → `delta` {content?,
 * reasoning?}… → `done` {message}):
 *
 * - `POST api/conversations/:id/messages` {content, model, attachments?}: a new user turn.
 * - `POST api/conversations/:id/messages/:messageId/edit` {content, model}: replaces an earlier user
 *   turn, drops everything after it, and answers again from there.
 * - `POST api/conversations/:id/regenerate` {model}: drops the last answer and writes a new one.
 * - `POST api/conversations/:id/stop`: stops the answer being written (so does closing the stream).
 *
 * One answer per conversation at a time (409 `conversation.busy`).
 */
export function answerRoutes(deps: ChatDeps) {
  const { store } = deps

  const owned = (c: Context, id: string): ConversationSummary => {
    const conversation = store.conversations.summary(c.get('user').id, id)
    if (!conversation) throw noConversation(id)
    return conversation
  }

  return new Hono()
    .post('/:id/messages', jsonBody(SendSchema), async (c) => {
      const conversation = owned(c, c.req.param('id'))
      const body = c.req.valid('json')
      checkSize(body.content)
      const userId = c.get('user').id
      const attachments = body.attachments.map((file, i) => {
        const found = store.files.get(userId, file)
        if (!found || found.messageId !== null || !found.mime.startsWith('image/')) {
          throw new SvcError('request.invalid', `attachments.${i}: no such uploaded image`, {
            param: `attachments.${i}`,
          })
        }
        return { file, mime: found.mime }
      })
      if (body.content.trim() === '' && attachments.length === 0) {
        throw new SvcError('request.invalid', 'content: write a message', { param: 'content' })
      }
      return answer(c, deps, {
        conversation,
        model: body.model,
        prepare: () =>
          store.messages.append(conversation.id, userId, {
            role: 'user',
            content: body.content,
            attachments,
          }),
      })
    })
    .post('/:id/messages/:messageId/edit', jsonBody(EditSchema), async (c) => {
      const conversation = owned(c, c.req.param('id'))
      const body = c.req.valid('json')
      checkSize(body.content)
      const target = store.messages.get(conversation.id, c.req.param('messageId'))
      if (target?.role !== 'user' || target.kind !== 'text') {
        throw new SvcError('request.invalid', 'only your own text messages can be edited', {
          param: 'messageId',
        })
      }
      return answer(c, deps, {
        conversation,
        model: body.model,
        prepare: () => {
          store.messages.editContent(target.id, body.content)
          store.messages.truncateAfter(conversation.id, target.seq)
          return { ...target, content: body.content }
        },
      })
    })
    .post('/:id/regenerate', jsonBody(RegenerateSchema), async (c) => {
      const conversation = owned(c, c.req.param('id'))
      const body = c.req.valid('json')
      const last = store.messages.lastUser(conversation.id)
      if (last?.kind !== 'text') {
        throw new SvcError('request.invalid', 'there is no message to answer again', { param: null })
      }
      return answer(c, deps, {
        conversation,
        model: body.model,
        prepare: () => {
          store.messages.truncateAfter(conversation.id, last.seq)
          return last
        },
      })
    })
    .post('/:id/stop', (c) => {
      const conversation = owned(c, c.req.param('id'))
      return c.json({ stopped: deps.generations.stop(conversation.id, 'stop') })
    })
}

/** 413 `request.too_large` for a message over `MAX_MESSAGE_BYTES` (the page says so before sending). */
function checkSize(content: string): void {
  const bytes = utf8Bytes(content)
  if (bytes > MAX_MESSAGE_BYTES) {
    throw new SvcError(
      'request.too_large',
      `the message is ${(bytes / 1e6).toFixed(1)} MB; the most one message can be is ${MAX_MESSAGE_BYTES / 1e6} MB`,
      { param: 'content' },
    )
  }
}

/** What a new answer is for: the conversation, the model, and how to write the user's turn. */
interface Turn {
  conversation: ConversationSummary
  model: string
  /** Writes (or picks) the user message the answer follows; runs inside the transaction. */
  prepare: () => Message
}

/**
 * Claims the conversation, lets `prepare` write the user turn (in one transaction with the new,
 * still empty assistant message), then streams the answer into it.
 */
async function answer(c: Context, deps: ChatDeps, turn: Turn): Promise<Response> {
  const { conversation, model, prepare } = turn
  const { store } = deps
  const userId = c.get('user').id
  const person = c.get('user').identity
  const controller = deps.generations.begin(conversation.id)
  if (!controller) {
    throw new SvcError('conversation.busy', 'an answer is being written in this conversation; stop it first')
  }
  let user: Message
  let assistant: Message
  let context: Awaited<ReturnType<typeof buildContext>>
  try {
    ;({ user, assistant } = store.db.transaction(() => {
      const user = prepare()
      const assistant = store.messages.append(conversation.id, userId, {
        role: 'assistant',
        status: 'streaming',
        model,
      })
      const title = conversation.title === DEFAULT_TITLE ? titleFrom(user.content) : undefined
      store.conversations.update(userId, conversation.id, { model, ...(title ? { title } : {}) })
      return { user, assistant }
    })())
    const history = store.conversations.get(userId, conversation.id)!.messages
    context = await buildContext(
      conversation.system,
      history.filter((m) => m.id !== assistant.id),
      (a) => deps.files.read(a.file).catch(() => undefined),
    )
  } catch (error) {
    deps.generations.end(conversation.id, controller)
    throw error
  }
  const gone = () => controller.abort('client-gone')
  c.req.raw.signal.addEventListener('abort', gone)
  return sseResponse(async (send) => {
    send('start', { user, assistant })
    try {
      await generate({
        api: deps.api,
        messages: store.messages,
        assistant,
        request: { model, messages: context },
        signal: controller.signal,
        emit: send,
        logger: deps.logger,
        saveEveryMs: deps.saveEveryMs,
        // The API counts (and limits) the person too when the chat app calls it with its token.
        ...(deps.api.hasToken && person !== LOCAL_IDENTITY ? { person } : {}),
      })
    } finally {
      deps.generations.end(conversation.id, controller)
      c.req.raw.signal.removeEventListener('abort', gone)
      store.conversations.touch(conversation.id)
    }
  }, gone)
}

/** A title from the first line of the first message: up to 60 characters, cut at a word. */
export function titleFrom(content: string): string | undefined {
  const line = content.trim().split('\n')[0]?.trim() ?? ''
  if (line === '') return undefined
  if (line.length <= 60) return line
  const cut = line.slice(0, 60)
  const space = cut.lastIndexOf(' ')
  return `${(space > 30 ? cut.slice(0, space) : cut).trimEnd()}…`
}
