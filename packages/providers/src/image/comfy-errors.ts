/**
 * ComfyUI's failures as svc's errors: a refused graph (its 400 `node_errors`) → 400 `request.invalid`
 * naming node and input, with `param` when a request field feeds that input; a failed or interrupted
 * execution (its history entry) → 502 `upstream.error` naming the node and exception.
 */
import { SvcError } from '@svc/core'
import type { ComfyHistoryEntry, ComfyRefusal } from './comfy-client'
import { requestParamFor, type WorkflowTemplate } from './workflow-template'

export function refusalError(refusal: ComfyRefusal, template: WorkflowTemplate): SvcError {
  const parts: string[] = []
  let param: string | null = null
  for (const [node, ne] of Object.entries(refusal.node_errors)) {
    for (const e of ne.errors) {
      const input = typeof e.extra_info?.input_name === 'string' ? e.extra_info.input_name : undefined
      const extra = e.details && e.details !== input ? ` (${e.details})` : ''
      parts.push(`node ${node} (${ne.class_type})${input ? ` input "${input}"` : ''}: ${e.message}${extra}`)
      if (param === null && input) param = requestParamFor(template, node, input)
    }
  }
  const { error } = refusal
  const what =
    parts.length > 0 ? parts.join('; ') : `${error.message}${error.details ? `: ${error.details}` : ''}`
  return new SvcError(
    'request.invalid',
    `ComfyUI refused the ${template.id} workflow: ${what} [${error.type}]`,
    {
      param,
    },
  )
}

export function executionError(entry: ComfyHistoryEntry): SvcError {
  const last = [...entry.status.messages]
    .reverse()
    .find(([event]) => event === 'execution_error' || event === 'execution_interrupted')
  if (!last)
    return new SvcError(
      'upstream.error',
      `ComfyUI finished the prompt with status "${entry.status.status_str}"`,
    )
  const [event, d] = last
  const at = `node ${String(d.node_id)} (${String(d.node_type)})`
  return event === 'execution_error'
    ? new SvcError(
        'upstream.error',
        `ComfyUI failed at ${at}: ${String(d.exception_type)}: ${String(d.exception_message)}`,
      )
    : new SvcError('upstream.error', `ComfyUI interrupted the prompt at ${at}`)
}
