/**
 * llama-server's error replies svc answers in its own words (`Provider.normaliseError`). A prompt
 * longer than the context it runs with comes back as HTTP 400
 * `{"error":{"code":400,"type":"exceed_context_size_error","n_prompt_tokens":N,"n_ctx":M,…}}`, streamed
 * or not (the check runs before the first token): svc answers 400 `context.too_long` naming both
 * sizes and where to change the context, instead of a bare `request.invalid`.
 */
import { SvcError } from '@svc/core'

/** The `context.too_long` error for llama-server's `exceed_context_size_error`; undefined for anything else. */
export function normaliseLlamaError(status: number, body: unknown): SvcError | undefined {
  if (status !== 400 || typeof body !== 'object' || body === null) return undefined
  const error = (body as { error?: unknown }).error
  if (typeof error !== 'object' || error === null) return undefined
  const { type, n_ctx: nCtx, n_prompt_tokens: prompt } = error as Record<string, unknown>
  if (type !== 'exceed_context_size_error') return undefined
  const tokens = typeof prompt === 'number' ? `${prompt} tokens` : 'more tokens than fit'
  const context = typeof nCtx === 'number' ? `a context of ${nCtx} tokens` : 'a smaller context'
  return new SvcError(
    'context.too_long',
    `the prompt has ${tokens}; the model runs with ${context}: shorten the conversation, or raise the slot's context size (ctx_size)`,
  )
}
