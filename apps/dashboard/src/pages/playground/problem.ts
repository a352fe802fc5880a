import { formatBytes } from '@svc/ui'

/** A failed request as the playground saw it: svc's error body (`code`, `status`) or a network failure. */
export interface Failure {
  message: string
  status: number | null
  code: string | null
}

/** What fixes a failure in the page: load the slot, open its settings, or nothing but words. */
export type Fix = 'load' | 'settings' | 'none'

/** Codes a Load button fixes: the slot holds no model, or did not get ready. */
const NEEDS_LOAD = new Set(['model.not_loaded', 'slot.offline', 'slot.unavailable'])

/** A command for a terminal (`svc slot load …`): a web page never shows one. */
const COMMAND = /`?\bsvc\s+[a-z]/i

/**
 * A failure in the page's own words, and the fix the page offers beside them (pure). The API's
 * message is shown only when it names no command; `slot` is the slot the request went to.
 */
export function describeFailure(failure: Failure, slot: string): { text: string; fix: Fix } {
  const { code } = failure
  if (code && NEEDS_LOAD.has(code))
    return {
      text:
        code === 'slot.unavailable'
          ? `${slot} did not get ready in time. Load it again, then send again.`
          : `${slot} holds no model right now. Load one, then send again.`,
      fix: 'load',
    }
  if (code === 'context.too_long')
    return {
      text: `This conversation is longer than the context ${slot} runs with. Clear it, or give ${slot} a larger context size in its settings.`,
      fix: 'settings',
    }
  if (code === 'request.too_large') {
    const most = /(\d+) bytes/.exec(failure.message)?.[1]
    return {
      text: `This request is too large for the server${most ? ` (the most it takes is ${formatBytes(Number(most))})` : ''}.`,
      fix: 'none',
    }
  }
  if (code === 'audio.unreadable')
    return {
      text: 'This file is not audio svc can read (wav, mp3, ogg, flac, m4a, webm…).',
      fix: 'none',
    }
  if (code === 'backend.unavailable')
    return {
      text: `${slot} cannot run on this machine as it is set up. Change its backend in its settings.`,
      fix: 'settings',
    }
  if (COMMAND.test(failure.message))
    return {
      text: `The server refused the request (${code ?? `HTTP ${failure.status ?? '?'}`}).`,
      fix: 'none',
    }
  return { text: failure.message, fix: 'none' }
}

/** An ApiError or any other thrown value as a Failure. */
export function failureOf(error: unknown): Failure {
  const e = error as { message?: unknown; status?: unknown; code?: unknown }
  return {
    message: typeof e?.message === 'string' ? e.message : String(error),
    status: typeof e?.status === 'number' ? e.status : null,
    code: typeof e?.code === 'string' ? e.code : null,
  }
}

/** Awaits a playground request; an error answer becomes an Error in the page's words (see `describeFailure`). */
export async function inWords<T>(call: Promise<T>, slot: string): Promise<T> {
  try {
    return await call
  } catch (e) {
    throw new Error(describeFailure(failureOf(e), slot).text)
  }
}
