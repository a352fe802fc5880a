import type { OutgoingHttpHeaders } from 'node:http'

/**
 * Response headers never relayed: hop-by-hop ones, and what belongs to the upstream's account or
 * host rather than to this answer — cookies (a hosted service's session or bot-management cookie),
 * the operator's organisation and project ids and rate limits (OpenAI, Anthropic), `alt-svc` and
 * HSTS for a host that is not svc's, and the upstream's own request id (svc's `X-Request-Id` stays).
 */
const NOT_RELAYED = new Set([
  'connection',
  'keep-alive',
  'proxy-authenticate',
  'proxy-authorization',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
  'set-cookie',
  'set-cookie2',
  'x-request-id',
  'alt-svc',
  'strict-transport-security',
  'openai-organization',
  'openai-project',
  'anthropic-organization-id',
])
const NOT_RELAYED_PREFIXES = ['x-ratelimit-', 'anthropic-ratelimit-']

/** The head svc answers with: the upstream's headers that are relayed, and svc's request id. */
export function relayedHeaders(
  from: Readonly<Record<string, string | string[] | undefined>>,
  requestId: string,
): OutgoingHttpHeaders {
  const headers: OutgoingHttpHeaders = { 'x-request-id': requestId }
  for (const name in from) {
    const value = from[name]
    if (value !== undefined && relayed(name)) headers[name] = value
  }
  return headers
}

export function relayed(name: string): boolean {
  if (NOT_RELAYED.has(name)) return false
  for (const prefix of NOT_RELAYED_PREFIXES) if (name.startsWith(prefix)) return false
  return true
}
