import { readErrorBody, readSse } from '@svc/core'
import { hc } from 'hono/client'
import type { ChatAppType } from '../server/app'
import type { Message } from '../server/store/types'
import type { Allowance } from '../server/upstream/allowance'

/**
 * The typed client of the chat server. The base is `.`: every call is relative to the page, so the
 * app works at `/` and under the proxy's `/chat/` alike.
 */
export const client = hc<ChatAppType>('.')

/** An error answer of the chat server, with svc's error code. */
export class ApiError extends Error {
  constructor(
    message: string,
    readonly status: number,
    readonly code: string,
  ) {
    super(message)
  }
}

/** The JSON body of a successful answer; an error answer is thrown as `ApiError`. */
export async function expectOk<T>(res: Response): Promise<T> {
  if (res.ok) return (await res.json()) as T
  throw await toApiError(res)
}

export async function toApiError(res: Response): Promise<ApiError> {
  const read = readErrorBody(await res.text().catch(() => ''), `${res.status} ${res.statusText}`)
  return new ApiError(read.message, res.status, read.code ?? 'unknown')
}

/** What the answer stream says (see the server's `answerRoutes`). */
export type AnswerEvent =
  | { type: 'start'; user: Message; assistant: Message }
  | { type: 'delta'; content?: string; reasoning?: string }
  | { type: 'done'; message: Message; allowance?: Allowance | null; code?: string }

/** Reads an answer stream; an error answer (before any event) is thrown as `ApiError`. */
export async function* answerEvents(res: Response): AsyncGenerator<AnswerEvent> {
  if (!res.ok || !res.body) throw await toApiError(res)
  for await (const event of readSse(res.body)) {
    const data = JSON.parse(event.data) as Record<string, unknown>
    if (event.event === 'start' || event.event === 'delta' || event.event === 'done') {
      yield { type: event.event, ...data } as AnswerEvent
    }
  }
}
