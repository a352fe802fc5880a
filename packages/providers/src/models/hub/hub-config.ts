/**
 * Where svc finds the Hugging Face Hub and who it is there: `HF_ENDPOINT` (a mirror, or a stand-in in
 * tests) and `HF_TOKEN` (gated and private repos), read by the app and passed in: `@huggingface/hub`
 * reads neither, so every call gets `hubUrl` and `accessToken` from here. The shape is the library's
 * own parameter names (the model library's `HubAccess` is the same object).
 */
import { SvcError } from '@svc/core'

export interface HubConfig {
  /** The Hub's origin (and path prefix, for a mirror), without a trailing slash. */
  hubUrl: string
  /** `HF_TOKEN`; absent when unset. */
  accessToken?: string
  /** Tests and proxies only; default the global fetch. */
  fetch?: typeof fetch
}

export const DEFAULT_HUB_URL = 'https://huggingface.co'

/**
 * The Hub config from `HF_ENDPOINT` and `HF_TOKEN` as the app read them (empty counts as unset).
 * Throws (a plain Error, for the startup's config report) when the endpoint is not an http(s) URL.
 */
export function hubConfig(env: {
  HF_ENDPOINT?: string | undefined
  HF_TOKEN?: string | undefined
}): HubConfig {
  const endpoint = env.HF_ENDPOINT?.trim() || DEFAULT_HUB_URL
  let url: URL
  try {
    url = new URL(endpoint)
  } catch {
    throw new Error(`HF_ENDPOINT "${endpoint}" is not a URL`)
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new Error(`HF_ENDPOINT "${endpoint}" must be an http(s) URL`)
  const token = env.HF_TOKEN?.trim()
  return { hubUrl: url.href.replace(/\/+$/, ''), ...(token ? { accessToken: token } : {}) }
}

/**
 * Refuses a token the Hub's client would refuse before sending anything (it must start with `hf_`):
 * 400 `request.invalid` that says so, without echoing the token.
 */
export function checkHubToken(config: HubConfig): void {
  const token = config.accessToken
  if (token !== undefined && !token.startsWith('hf_'))
    throw new SvcError(
      'request.invalid',
      'HF_TOKEN is not a Hugging Face access token (they start with "hf_"); fix it in the server\'s environment, or unset it for public repos',
      { param: 'model' },
    )
}

/** The header a request to the Hub's own origin carries; never sent to the CDN it redirects to. */
export function hubAuthHeaders(config: HubConfig): Record<string, string> {
  return config.accessToken ? { authorization: `Bearer ${config.accessToken}` } : {}
}

/**
 * The headers for a download from `url`: the token for a file on the Hub's own origin, nothing for
 * any other (download.ts sends them to that origin only, never on to the CDN after a redirect).
 */
export function hubHeadersFor(config: HubConfig): (url: string) => Record<string, string> | undefined {
  if (!config.accessToken) return () => undefined
  const origin = new URL(config.hubUrl).origin
  return (url) => (url.startsWith(`${origin}/`) ? hubAuthHeaders(config) : undefined)
}
