import type { TlsMode } from './host-name'
import { LAYOUT } from './layout'

/** A Caddy release as `caddy version` reports it. */
export interface CaddyVersion {
  major: number
  minor: number
  patch: number
}

/** Parses `caddy version` output (`2.6.2` from Debian, `v2.8.4 h1:…` from upstream builds). */
export function parseCaddyVersion(output: string): CaddyVersion | undefined {
  const m = /\bv?(\d+)\.(\d+)\.(\d+)/.exec(output)
  if (!m) return undefined
  return { major: Number(m[1]), minor: Number(m[2]), patch: Number(m[3]) }
}

/** Header names the proxy owns: never taken from a client, set only by the proxy. */
export const IDENTITY_HEADER = 'X-Forwarded-Email'
export const SECRET_HEADER = 'X-Svc-Proxy-Secret'

export interface CaddyfileInput {
  hostname: string
  tls: { mode: 'internal' } | { mode: Extract<TlsMode, 'acme'>; email: string }
  caddyVersion: CaddyVersion
  /** Sent to the API and to the auth gate as `X-Svc-Proxy-Secret` on every route to it (base64url). */
  proxySecret: string
  /** Sent to the chat app instead: it must never hold the API's. */
  chatProxySecret: string
  ports: { api: number; chat: number; gate: number; http: number; https: number }
}

/**
 * Renders svc's Caddyfile. Basic auth is checked by svc's auth gate (`forward_auth` to
 * svc-auth.service), not by Caddy's `basicauth`, which has no rate limit in any Caddy version a
 * distribution ships (each wrong password a full bcrypt, guessing unbounded); the gate throttles
 * failures per client and answers the identity, which `copy_headers` puts into the request. Routes:
 * - `/v1/*` → the API without basic auth (bearer tokens, checked by svc); a request that carries
 *   Basic credentials (a signed-in browser) is checked and gets the identity like any page;
 * - `/chat` → 308 `/chat/`; `/chat/*` → the chat app (prefix stripped) behind basic auth;
 * - everything else → the API behind basic auth.
 *
 * Invariants (each a test against the real Caddy): the identity and secret headers a client sends
 * are deleted on every path before any route runs (`request_header`, a separate op list from
 * `header_up`, whose delete would run after its set); the identity is set only after basic auth; the
 * browser's `Authorization: Basic …` is never forwarded; the secret is added on every route. No
 * `encode`: event streams pass uncompressed, and Caddy flushes `text/event-stream` as it comes.
 */
export function renderCaddyfile(input: CaddyfileInput): string {
  const { hostname, proxySecret, chatProxySecret, ports } = input
  const v = input.caddyVersion
  const global = [
    ports.http !== 80 ? `\thttp_port ${ports.http}` : '',
    ports.https !== 443 ? `\thttps_port ${ports.https}` : '',
    input.tls.mode === 'internal'
      ? '\t# Clients import the CA root by hand (see docs/auth.md#trusting-the-certificate).\n\tskip_install_trust'
      : `\temail ${input.tls.email}`,
  ].filter(Boolean)
  const basic = (indent: string) =>
    [
      `forward_auth 127.0.0.1:${ports.gate} {`,
      '\turi /check',
      `\theader_up ${SECRET_HEADER} "${proxySecret}"`,
      `\tcopy_headers ${IDENTITY_HEADER}`,
      '}',
    ]
      .map((l) => indent + l)
      .join('\n')
  const proxy = (indent: string, port: number, extra: string[], secret = proxySecret) =>
    [
      `reverse_proxy 127.0.0.1:${port} {`,
      ...extra.map((l) => `\t${l}`),
      `\theader_up ${SECRET_HEADER} "${secret}"`,
      '}',
    ]
      .map((l) => indent + l)
      .join('\n')
  // the identity is in the request already (copy_headers, only after the gate said yes)
  const signedIn = ['header_up -Authorization']

  return `# svc's reverse proxy, written by \`svc install --auth=basic\` for Caddy ${v.major}.${v.minor}.${v.patch}.
# Re-running the installer rewrites this file (and rotates the secret below); directives you want
# to keep go into ${LAYOUT.caddyIncludes}/*.caddy, imported into the site below.
# Mode 0640 root:caddy: it holds the proxy secrets. The password is checked by svc-auth.service.
{
${global.join('\n')}
}

${hostname} {
${input.tls.mode === 'internal' ? '\ttls internal\n\n' : ''}\t# Identity headers are never taken from a client, on any path (also the "_" spellings some
\t# stacks treat as the same header).
\trequest_header -${IDENTITY_HEADER}
\trequest_header -${IDENTITY_HEADER.replaceAll('-', '_')}
\trequest_header -${SECRET_HEADER}
\trequest_header -${SECRET_HEADER.replaceAll('-', '_')}

\timport ${LAYOUT.caddyIncludes}/*.caddy

\t# OpenAI API: bearer tokens, checked by svc. A browser that is signed in sends its Basic
\t# credentials here too: they are checked and become the identity, and are not forwarded.
\thandle /v1/* {
\t\t@signed_in header_regexp Authorization ^(?i)basic\\s
\t\thandle @signed_in {
${basic('\t\t\t')}
${proxy('\t\t\t', ports.api, signedIn)}
\t\t}
\t\thandle {
${proxy('\t\t\t', ports.api, [])}
\t\t}
\t}

\t# The chat app, under /chat/ (it sees the paths without the prefix; its links are relative).
\tredir /chat /chat/ 308
\thandle_path /chat/* {
${basic('\t\t')}
${proxy('\t\t', ports.chat, signedIn, chatProxySecret)}
\t}

\t# Everything else: the dashboard and the management API, for the signed-in user.
\thandle {
${basic('\t\t')}
${proxy('\t\t', ports.api, signedIn)}
\t}
}
`
}

/** Replaces the secrets of a rendered Caddyfile in `text` (Caddy's error output) with `***`. */
export function redactSecrets(text: string, secrets: string[]): string {
  return secrets.filter((s) => s.length > 0).reduce((t, s) => t.replaceAll(s, '***'), text)
}
