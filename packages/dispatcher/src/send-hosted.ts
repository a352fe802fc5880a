/**
 * Sending a request to a hosted upstream (`openai/gpt-4o-mini`): no slot, no lease; the app's rule
 * may refuse it first (with auth off, no page of another site spends a hosted upstream's key).
 */
import type { DispatcherOptions } from './dispatch-types'
import type { EndpointSpec } from './endpoints'
import type { Exchange, SendHop } from './exchange'
import { hostedUrl } from './hosted'
import { rewriteModel } from './outbound'
import type { ReadRequest } from './read-request'
import type { Target } from './resolve'

export async function sendToHosted(
  context: { options: DispatcherOptions; send: SendHop },
  exchange: Exchange,
  target: Extract<Target, { kind: 'hosted' }>,
  spec: EndpointSpec,
  request: ReadRequest,
): Promise<void> {
  const refused = context.options.refuseHosted?.(exchange.req)
  if (refused) throw refused
  exchange.record.model = `${target.upstream.name}/${target.model}`
  await context.send(exchange, {
    target,
    url: hostedUrl(target.upstream, spec, exchange.record.route),
    body: rewriteModel(request.body, request.json, target.model),
    timeoutMs: target.upstream.timeoutMs,
    ...(target.upstream.apiKey ? { auth: target.upstream.apiKey } : {}),
  })
}
