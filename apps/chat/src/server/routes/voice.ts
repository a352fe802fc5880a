import { isCrossSite, PROXY_SECRET_HEADER } from '@svc/auth'
import { SvcError } from '@svc/core'
import { Hono, type MiddlewareHandler } from 'hono'
import * as v from 'valibot'
import type { ChatDeps } from '../deps'
import { LOCAL_IDENTITY, peerAddress } from '../http/identity'
import { queryOf } from '../http/validate'
import type { Conversation, Message, MessageStatus } from '../store/types'
import { VOICE_UPGRADE, type VoiceGrant, type VoiceUpgrade } from '../voice/voice-grant'
import { titleFrom } from './answers'
import { DEFAULT_TITLE, noConversation } from './conversations'

const RealtimeQuery = v.object({
  conversation: v.pipe(v.string(), v.regex(/^[\w-]{1,64}$/, 'a conversation id')),
  model: v.pipe(v.string(), v.minLength(1), v.maxLength(256)),
})

/** How many earlier text turns svc is told at the start of a voice session (the newest). */
const HISTORY_TURNS = 24

/** How a Realtime response's status is kept on the answer. */
const STATUS_OF: Record<string, Exclude<MessageStatus, 'streaming'>> = {
  completed: 'complete',
  cancelled: 'stopped',
  incomplete: 'stopped',
  failed: 'error',
}

/**
 * `GET api/realtime?conversation=<id>&model=<model>`: the voice mode's WebSocket. The chat server
 * relays it to svc's `/v1/realtime` with its own token (a browser cannot send one on a WebSocket);
 * this route is the upgrade's gate, so it passes every check a request passes (host, identity) and one
 * more: the page must be one of this app's own (a WebSocket carries the proxy's cached credentials
 * from any site that opens one), whatever the method. It claims the conversation like an answer does
 * (409 `conversation.busy` while one is written; the conversation's Stop ends the session) and
 * hands the relay what svc is told first (system prompt, earlier text turns) and how to save each
 * spoken turn. A plain GET (no upgrade) gets the same refusals, else 400: a page whose socket was
 * refused (a browser learns nothing of why) asks that way.
 */
export function voiceRoutes(deps: ChatDeps) {
  const { store } = deps
  const sameOrigin: MiddlewareHandler = async (c, next) => {
    const viaProxy = () => deps.fromProxy(peerAddress(c), c.req.header(PROXY_SECRET_HEADER))
    if (isCrossSite((name) => c.req.header(name), viaProxy)) {
      throw new SvcError(
        'auth.forbidden',
        'voice mode may be opened only from a page of this chat app (same origin)',
      )
    }
    await next()
  }
  return new Hono().get('/realtime', sameOrigin, queryOf(RealtimeQuery), (c) => {
    const { conversation: id, model } = c.req.valid('query')
    const user = c.get('user')
    const conversation = store.conversations.get(user.id, id)
    if (!conversation) throw noConversation(id)
    const upgrade = (c.env as Record<string, unknown> | undefined)?.[VOICE_UPGRADE] as
      | VoiceUpgrade
      | undefined
    const busy = () =>
      new SvcError(
        'conversation.busy',
        'an answer is being written in this conversation (or voice mode runs in another tab); stop it first',
      )
    // Checked before the upgrade is: a page whose socket was refused asks the same URL plainly to learn why.
    if (deps.generations.isRunning(id)) throw busy()
    if (!upgrade) {
      throw new SvcError('request.invalid', 'api/realtime is a WebSocket: open it with an upgrade', {
        param: null,
      })
    }
    const controller = deps.generations.begin(id)
    if (!controller) throw busy()
    let title = conversation.title
    let ended = false
    const grant: VoiceGrant = {
      model,
      person: deps.api.hasToken && user.identity !== LOCAL_IDENTITY ? user.identity : undefined,
      context: contextEvents(conversation),
      signal: controller.signal,
      record(turn) {
        if (!turn.heard && !turn.answer) return undefined
        const saved = store.db.transaction(() => {
          const userMessage = store.messages.append(id, user.id, { role: 'user', content: turn.heard })
          const status = STATUS_OF[turn.status] ?? 'complete'
          const assistant = store.messages.append(id, user.id, {
            role: 'assistant',
            content: turn.answer,
            status,
            model,
          })
          const named = title === DEFAULT_TITLE ? titleFrom(turn.heard) : undefined
          store.conversations.update(user.id, id, { model, ...(named ? { title: named } : {}) })
          if (named) title = named
          return { user: userMessage, assistant }
        })()
        store.conversations.touch(id)
        return saved
      },
      end() {
        if (ended) return
        ended = true
        deps.generations.end(id, controller)
        store.conversations.touch(id)
      },
    }
    upgrade.accept(grant)
    return c.body(null, 204)
  })
}

/**
 * What svc is told before the person speaks: the system prompt as the session's instructions, then
 * the newest text turns as conversation items (image turns and failed answers left out, as for a
 * typed answer).
 */
export function contextEvents(conversation: Conversation): object[] {
  const events: object[] = []
  if (conversation.system.trim()) {
    events.push({
      type: 'session.update',
      session: { type: 'realtime', instructions: conversation.system },
    })
  }
  const turns = conversation.messages.filter(
    (m: Message) => m.kind === 'text' && m.content.trim() !== '' && m.status !== 'error',
  )
  for (const m of turns.slice(-HISTORY_TURNS)) {
    events.push({
      type: 'conversation.item.create',
      item: {
        type: 'message',
        role: m.role,
        content: [{ type: m.role === 'user' ? 'input_text' : 'output_text', text: m.content }],
      },
    })
  }
  return events
}
