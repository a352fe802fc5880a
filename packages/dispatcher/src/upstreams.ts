/**
 * Hosted upstreams: `<config>/upstreams.toml`, so that refs like `openai/gpt-4o-mini` go to a hosted
 * OpenAI-compatible service with the operator's key. The URL and the key come from this file and the
 * environment only — a request can never choose where it is sent.
 *
 * ```toml
 * [[upstream]]
 * name = "openai"                      # refs are "<name>/<model>" (or start with `prefix`)
 * base_url = "https://api.openai.com/v1"
 * api_key_env = "OPENAI_API_KEY"       # the key is read from this env var, never stored in the file
 * models = ["gpt-4o-mini", "gpt-4o"]   # optional allow-list; without it any "<name>/<model>" passes
 * # prefix = "oai/"                    # optional: the ref prefix when it is not "<name>/"
 * # timeout_s = 600
 * ```
 */
import { parseTomlText } from '@svc/core'
import * as v from 'valibot'

export const UpstreamSchema = v.strictObject({
  name: v.pipe(v.string(), v.regex(/^[a-z0-9][a-z0-9_-]{0,31}$/, 'a short lower-case name')),
  base_url: v.pipe(v.string(), v.url(), v.regex(/^https?:\/\//, 'an http(s) URL')),
  api_key_env: v.optional(v.pipe(v.string(), v.regex(/^[A-Z_][A-Z0-9_]*$/, 'an environment variable name'))),
  models: v.optional(v.array(v.pipe(v.string(), v.minLength(1)))),
  prefix: v.optional(v.pipe(v.string(), v.minLength(1))),
  timeout_s: v.optional(v.pipe(v.number(), v.minValue(1), v.maxValue(3600))),
})

export const UpstreamsFileSchema = v.strictObject({ upstream: v.optional(v.array(UpstreamSchema), []) })

export interface HostedUpstream {
  name: string
  baseUrl: URL
  prefix: string
  models?: string[]
  apiKey?: string
  apiKeyEnv?: string
  timeoutMs: number
}

export type UpstreamsResult = { ok: true; upstreams: HostedUpstream[] } | { ok: false; error: string }

/** Parses the text of upstreams.toml; keys are looked up in `env`. Never throws. */
export function parseUpstreams(
  text: string,
  env: Record<string, string | undefined>,
  file = 'upstreams.toml',
): UpstreamsResult {
  const toml = parseTomlText(text, file)
  if (!toml.ok) return toml
  const r = v.safeParse(UpstreamsFileSchema, toml.data)
  if (!r.success) {
    const issue = r.issues[0]
    return { ok: false, error: `${file}: field "${v.getDotPath(issue) ?? '?'}": ${issue.message}` }
  }
  const upstreams = r.output.upstream.map((u): HostedUpstream => {
    const base = u.base_url.endsWith('/') ? u.base_url : `${u.base_url}/`
    const key = u.api_key_env ? env[u.api_key_env] : undefined
    return {
      name: u.name,
      baseUrl: new URL(base),
      prefix: u.prefix ?? `${u.name}/`,
      timeoutMs: (u.timeout_s ?? 600) * 1000,
      ...(u.models ? { models: u.models } : {}),
      ...(key ? { apiKey: key } : {}),
      ...(u.api_key_env ? { apiKeyEnv: u.api_key_env } : {}),
    }
  })
  const names = new Set<string>()
  for (const u of upstreams) {
    if (names.has(u.prefix))
      return { ok: false, error: `${file}: two upstreams claim the prefix "${u.prefix}"` }
    names.add(u.prefix)
  }
  return { ok: true, upstreams }
}

/** The hosted upstream and upstream-side model id for a ref, if any upstream claims it. */
export function matchUpstream(
  ref: string,
  upstreams: readonly HostedUpstream[],
): { upstream: HostedUpstream; model: string } | undefined {
  for (const upstream of upstreams) {
    if (!ref.startsWith(upstream.prefix)) continue
    const model = ref.slice(upstream.prefix.length)
    if (!model) continue
    if (upstream.models && !upstream.models.includes(model)) continue
    return { upstream, model }
  }
  return undefined
}

/** The refs `/v1/models` lists for hosted upstreams with an explicit model list. */
export function hostedRefs(upstreams: readonly HostedUpstream[]): { id: string; owned_by: string }[] {
  return upstreams.flatMap((u) => (u.models ?? []).map((m) => ({ id: `${u.prefix}${m}`, owned_by: u.name })))
}
