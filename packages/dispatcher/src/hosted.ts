/**
 * Where a request for a hosted upstream goes, checked before its API key is spent: the upstream
 * must speak the path (hosted upstreams are OpenAI-compatible: no Anthropic Messages, no token
 * counting of chat) and hold the key its config names.
 */
import { SvcError } from '@svc/core'
import type { EndpointSpec } from './endpoints'
import { upstreamUrl } from './outbound'
import type { HostedUpstream } from './upstreams'

export function hostedUrl(upstream: HostedUpstream, spec: EndpointSpec, route: string): URL {
  if (!spec.hostedPath) {
    throw new SvcError(
      'request.invalid',
      `upstream ${upstream.name} speaks the OpenAI API, which has no ${route}; use /v1/chat/completions or /v1/responses for ${upstream.name}/… models`,
      { param: 'model' },
    )
  }
  if (upstream.apiKeyEnv && !upstream.apiKey) {
    throw new SvcError(
      'upstream.unavailable',
      `upstream ${upstream.name} has no API key: set ${upstream.apiKeyEnv} in svc's environment`,
    )
  }
  return upstreamUrl(upstream.baseUrl, spec.hostedPath.replace(/^\//, ''))
}
