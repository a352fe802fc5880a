import { useEffect, useState } from 'preact/hooks'
import type { Conversation, ConversationSummary, Message } from '../server/store/types'
import type { Allowance } from '../server/upstream/allowance'
import type { ModelList } from '../server/upstream/models'

export interface Me {
  identity: string
  auth: 'proxy' | 'off'
  version: string
}

/**
 * What the page says above the message box when something stands in the way, with its fix in the
 * page: Load (`not-loaded`), "ask an admin" (`forbidden`), New chat (`context`), or just words.
 */
export type Notice =
  | { kind: 'not-loaded'; model: string }
  | { kind: 'forbidden'; model: string }
  | { kind: 'context'; model: string }
  | { kind: 'error'; text: string }

/** The page's one state; components read it through `useChat` and change it only through actions. */
export interface ChatState {
  me: Me | null
  /** Why the page cannot work at all (not signed in, the API refuses the chat app's token…). */
  fatal: string | null
  models: ModelList | null
  /** Why the model list could not be read (shown as a banner; chatting is then impossible). */
  modelsError: string | null
  conversations: ConversationSummary[]
  query: string
  /** The open conversation; null for a new, not yet saved chat. */
  current: Conversation | null
  /** The model chosen in the picker. */
  model: string
  /** The conversation an answer is being written in right now, if any. */
  streaming: string | null
  mode: 'chat' | 'image'
  /** A system prompt typed before the first message of a new chat (saved with the conversation). */
  draftSystem: string
  /** What the person has left of their quota, as of the last answer (null: not limited, or unknown). */
  allowance: Allowance | null
  /** The model a Load asked for is being loaded (the picker and the Load button say so). */
  loading: string | null
  /** What stands in the way of the last send, shown above the message box with its fix. */
  notice: Notice | null
}

export const initialState: ChatState = {
  me: null,
  fatal: null,
  models: null,
  modelsError: null,
  conversations: [],
  query: '',
  current: null,
  model: '',
  streaming: null,
  mode: 'chat',
  draftSystem: '',
  allowance: null,
  loading: null,
  notice: null,
}

type Listener = () => void

/** A tiny observable store: `set` merges and notifies; `useChat(select)` re-renders on change. */
export function createStore<S extends object>(initial: S) {
  let state = initial
  const listeners = new Set<Listener>()
  return {
    get: () => state,
    set(patch: Partial<S> | ((s: S) => Partial<S>)) {
      const next = typeof patch === 'function' ? patch(state) : patch
      state = { ...state, ...next }
      for (const l of listeners) l()
    },
    subscribe(listener: Listener) {
      listeners.add(listener)
      return () => listeners.delete(listener)
    },
  }
}

export const store = createStore<ChatState>(initialState)

/** The selected part of the state; the component re-renders when it changes (by identity). */
export function useChat<T>(select: (s: ChatState) => T): T {
  const [value, setValue] = useState(() => select(store.get()))
  useEffect(() => {
    const update = () => setValue(() => select(store.get()))
    update()
    return store.subscribe(update)
  }, [])
  return value
}

/** Replaces one message of the open conversation (matched by id). */
export function withMessage(current: Conversation, message: Message): Conversation {
  return { ...current, messages: current.messages.map((m) => (m.id === message.id ? message : m)) }
}
