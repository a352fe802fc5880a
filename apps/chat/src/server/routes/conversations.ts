import { SvcError } from '@svc/core'
import { Hono } from 'hono'
import * as v from 'valibot'
import { exportName, toJson, toMarkdown } from '../chat/export'
import type { ChatDeps } from '../deps'
import { CreateConversationSchema, PatchConversationSchema } from '../http/schemas'
import { jsonBody, queryOf } from '../http/validate'

export const DEFAULT_TITLE = 'New chat'

const ListQuery = v.object({ q: v.optional(v.pipe(v.string(), v.maxLength(200))) })
const ExportQuery = v.object({ format: v.optional(v.picklist(['md', 'json']), 'md') })

/** The 404 for a conversation that does not exist or is someone else's (the two look the same). */
export function noConversation(id: string): SvcError {
  return new SvcError('conversation.not_found', `no conversation ${id}`)
}

/**
 * `api/conversations`: the signed-in person's conversations — list (`?q=` searches titles), create,
 * read with messages, rename / set model / set system prompt, delete (with their stored files),
 * export as Markdown or JSON. Everything is scoped to `c.get('user')`.
 */
export function conversationRoutes(deps: ChatDeps) {
  const { store } = deps
  return new Hono()
    .get('/', queryOf(ListQuery), (c) => {
      const query = c.req.valid('query').q
      const list = store.conversations.list(c.get('user').id, query === undefined ? {} : { query })
      return c.json({ conversations: list.map((s) => ({ ...s, running: deps.generations.isRunning(s.id) })) })
    })
    .post('/', jsonBody(CreateConversationSchema), (c) => {
      const body = c.req.valid('json')
      const created = store.conversations.create(c.get('user').id, {
        title: body.title || DEFAULT_TITLE,
        model: body.model ?? null,
        system: body.system ?? '',
      })
      return c.json({ conversation: { ...created, messages: [] } }, 201)
    })
    .get('/:id', (c) => {
      const id = c.req.param('id')
      const conversation = store.conversations.get(c.get('user').id, id)
      if (!conversation) throw noConversation(id)
      return c.json({ conversation: { ...conversation, running: deps.generations.isRunning(id) } })
    })
    .patch('/:id', jsonBody(PatchConversationSchema), (c) => {
      const id = c.req.param('id')
      const patch = c.req.valid('json')
      const updated = store.conversations.update(c.get('user').id, id, patch)
      if (!updated) throw noConversation(id)
      return c.json({ conversation: updated })
    })
    .delete('/:id', async (c) => {
      const id = c.req.param('id')
      const user = c.get('user').id
      if (!store.conversations.summary(user, id)) throw noConversation(id)
      deps.generations.stop(id)
      const files = store.conversations.remove(user, id)
      if (!files) throw noConversation(id)
      await deps.files.unlink(files)
      return c.json({ id, deleted: true })
    })
    .get('/:id/export', queryOf(ExportQuery), (c) => {
      const id = c.req.param('id')
      const { format } = c.req.valid('query')
      const conversation = store.conversations.get(c.get('user').id, id)
      if (!conversation) throw noConversation(id)
      const body = format === 'json' ? toJson(conversation) : toMarkdown(conversation)
      return c.body(body, 200, {
        'content-type':
          format === 'json' ? 'application/json; charset=utf-8' : 'text/markdown; charset=utf-8',
        'content-disposition': `attachment; filename="${exportName(conversation, format)}"`,
      })
    })
}
