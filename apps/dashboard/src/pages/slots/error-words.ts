/**
 * What a slot card says about a failure, and which fix it offers in the page. The API's message is
 * shown as it came unless it tells the reader to run a command (`svc …`): a web page never sends a
 * person to a terminal (docs/dashboard.md), so the card says it in its own words and offers the
 * button or link that does it.
 */

/** The fix a card offers beside an error. */
export type Fix = 'load' | 'settings' | 'none'

export interface Said {
  text: string
  fix: Fix
}

const LOAD_CODES = new Set(['model.not_loaded', 'slot.offline', 'slot.unavailable'])

/** Whether `message` tells the reader to run svc's CLI. */
export function namesCommand(message: string): boolean {
  return /(^|[\s`'"(:])svc\s+[a-z]/.test(message)
}

/**
 * The words and fix for an error: by `code` when the API sent one (an answer to a request), else by
 * what a slot's `lastError` string says (a failed load in the background has no code).
 */
export function sayError(code: string | null, message: string): Said {
  if (code === 'context.too_long' || /exceed[s]?(_| )context|context (size|length)|n_ctx/i.test(message))
    return {
      text: 'The request did not fit in the context size of this slot. A larger context size in its settings takes it.',
      fix: 'settings',
    }
  if (code && LOAD_CODES.has(code))
    return { text: 'This slot holds no model at the moment. Load one to answer requests.', fix: 'load' }
  if (code === 'backend.unavailable') return { text: stripCommand(message), fix: 'settings' }
  return { text: stripCommand(message), fix: 'load' }
}

/** The message without a sentence that names a command ("…; load one with: svc slot load …"). */
export function stripCommand(message: string): string {
  if (!namesCommand(message)) return message
  const kept = message
    .split(/(?<=[.;])\s+|;\s*/)
    .filter((part) => !namesCommand(part))
    .join(' ')
    .replace(/[\s:;,]+$/, '')
  return kept || 'The slot could not do it.'
}
