import { Hono } from 'hono'
import type { AppDeps } from '../deps'

/** Host names and ports only: anything else in Host / X-Forwarded-Host is ignored, not echoed. */
const HOST_PATTERN = /^(\[[0-9a-fA-F:.]+\]|[A-Za-z0-9.-]+)(:\d{1,5})?$/

export interface UrlHints {
  api_base: string
  dashboard: string
  chat: string
  metrics: string
}

/**
 * `GET /api/config/urls` → URL hints for the dashboard and for people copying settings, built from
 * how the caller reached svc: `X-Forwarded-Host` / `X-Forwarded-Proto` when a proxy sits in front,
 * else `Host`. With auth on the chat front end lives behind the proxy at `/chat/`; with auth off it
 * runs on its own port 3001 of the same host.
 */
export function urlHints(input: {
  host?: string
  forwardedHost?: string
  forwardedProto?: string
  protocol: string
  authEnabled: boolean
}): UrlHints {
  const first = (value?: string) => value?.split(',')[0]?.trim()
  const candidates = [first(input.forwardedHost), input.host?.trim()]
  const host = candidates.find((h): h is string => !!h && HOST_PATTERN.test(h)) ?? 'localhost:8080'
  const fwdProto = first(input.forwardedProto)?.toLowerCase()
  const proto = fwdProto === 'https' || fwdProto === 'http' ? fwdProto : input.protocol
  const origin = `${proto}://${host}`
  const hostname = HOST_PATTERN.exec(host)?.[1] ?? 'localhost'
  return {
    api_base: `${origin}/v1`,
    dashboard: `${origin}/`,
    chat: input.authEnabled ? `${origin}/chat/` : `${proto}://${hostname}:3001/`,
    metrics: `${origin}/api/metrics`,
  }
}

export function configRoutes(deps: AppDeps) {
  return new Hono().get('/urls', (c) =>
    c.json(
      urlHints({
        host: c.req.header('host'),
        forwardedHost: c.req.header('x-forwarded-host'),
        forwardedProto: c.req.header('x-forwarded-proto'),
        protocol: new URL(c.req.url).protocol.replace(':', ''),
        authEnabled: deps.auth.enabled,
      }),
    ),
  )
}
