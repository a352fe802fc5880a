/**
 * The Hub's refusals as svc's errors, naming the repo and what to do. `@huggingface/hub` throws only
 * `HubApiError` (status, message) and ignores `X-Error-Code`, so the caller reads that header through
 * its own fetch (`trackErrors`) and passes it here.
 */

import { HubApiError } from '@huggingface/hub'
import { SvcError } from '@svc/core'
import { looksOffline, OFFLINE_WAY_ON } from '../offline'

/** A fetch that remembers the `X-Error-Code` / `X-Error-Message` of the last failed answer. */
export function trackErrors(base: typeof fetch = fetch): {
  fetch: typeof fetch
  last: { code: string | null; message: string | null }
} {
  const last = { code: null as string | null, message: null as string | null }
  const tracked: typeof fetch = async (input, init) => {
    const res = await base(input, init)
    if (!res.ok) {
      last.code = res.headers.get('x-error-code')
      last.message = res.headers.get('x-error-message')
    }
    return res
  }
  return { fetch: tracked, last }
}

export interface HubErrorContext {
  hubUrl: string
  repo: string
  /** What svc was doing, for the message ("resolving hf.co/o/r:Q4_K_M"). */
  what: string
  /** Whether HF_TOKEN was sent. */
  token: boolean
  /** The Hub's `X-Error-Code` / `X-Error-Message`, when it said them. */
  code?: string | null
  message?: string | null
}

/**
 * Gated repo: 401 `hub.unauthorized` without a token, 403 with one the Hub refused for it. A token
 * the Hub does not accept at all: 401 `hub.unauthorized`. A missing (or private) repo, revision or
 * file: 404 `model.not_found`. 429: `hub.rate_limited`. The Hub unreachable: 502
 * `upstream.unavailable` naming the endpoint and the way on without it (a local file, a mirror;
 * "this machine looks offline" when the name does not resolve or there is no route); any other
 * answer 502 `upstream.error`.
 */
export function hubError(error: unknown, at: HubErrorContext): SvcError {
  if (error instanceof SvcError) return error
  const page = `${at.hubUrl}/${at.repo}`
  if (error instanceof HubApiError || typeof (error as { statusCode?: unknown }).statusCode === 'number') {
    const status = (error as HubApiError).statusCode
    const code = at.code ?? null
    if (code === 'GatedRepo' || (status === 403 && at.token)) {
      return status === 401 || !at.token
        ? new SvcError(
            'hub.unauthorized',
            `${at.repo} is a gated repo on the Hub: set HF_TOKEN to a token of an account granted access (ask for it at ${page})`,
            { param: 'model' },
          )
        : new SvcError(
            'hub.unauthorized',
            `the Hub refused HF_TOKEN for the gated repo ${at.repo}: that account has not been granted access yet (ask for it at ${page})`,
            { param: 'model', status: 403 },
          )
    }
    if (
      status === 401 &&
      at.token &&
      (code === null || /invalid credentials|invalid username/i.test(at.message ?? ''))
    )
      return new SvcError(
        'hub.unauthorized',
        `the Hub at ${at.hubUrl} does not accept HF_TOKEN (invalid credentials) while ${at.what}`,
        {
          param: 'model',
        },
      )
    if (status === 404 || status === 401) {
      const why =
        code === 'RevisionNotFound' || code === 'EntryNotFound'
          ? `the Hub at ${at.hubUrl} has no such ${code === 'EntryNotFound' ? 'file' : 'revision'} in ${at.repo}`
          : at.token
            ? `the Hub at ${at.hubUrl} has no repo ${at.repo} that HF_TOKEN can read`
            : `the Hub at ${at.hubUrl} has no public repo ${at.repo} (a private one needs HF_TOKEN)`
      return new SvcError('model.not_found', why, { param: 'model' })
    }
    if (status === 429)
      return new SvcError(
        'hub.rate_limited',
        `the Hub at ${at.hubUrl} is rate-limiting svc while ${at.what}; try again in a minute${at.token ? '' : ' (HF_TOKEN raises the limit)'}`,
      )
    return new SvcError(
      'upstream.error',
      `the Hub at ${at.hubUrl} answered ${status} while ${at.what}: ${(error as Error).message}`,
    )
  }
  const cause = (error as { cause?: { code?: string; message?: string } }).cause
  const why = cause?.code ?? cause?.message ?? (error as Error).message ?? String(error)
  // No name resolution or no route: the machine (or its DNS) is offline, which people can act on.
  const offline = looksOffline(cause?.code)
  return new SvcError(
    'upstream.unavailable',
    `cannot reach the Hugging Face Hub at ${at.hubUrl} (${why}): ${
      offline ? 'this machine looks offline' : `it did not answer while ${at.what}`
    }; ${OFFLINE_WAY_ON}, or set HF_ENDPOINT to a mirror`,
  )
}
