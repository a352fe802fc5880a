/**
 * Builds the usage side of the API: the ledger at `<state>/usage.db`, the quota meter, the recorder
 * fed by every dispatch record, the quota gate for the inference path, and the per-token counters
 * for Prometheus (labelled by token id only: never a secret, never a label a person typed), with
 * `svc_quota_refusals_total{token,limit}` for a token over its quota.
 */

import type { IncomingMessage } from 'node:http'
import { join } from 'node:path'
import { createQuotaMeter, type TokenStore } from '@svc/auth'
import { remember } from '@svc/core'
import type { Logger } from '@svc/core/node'
import type { DispatchRecord } from '@svc/dispatcher'
import type { HotMetrics } from '../hot-metrics'
import { openLedger } from './ledger'
import { createQuotaGate, type QuotaGate } from './quota-gate'
import type { UsageEnv } from './usage-env'
import { createUsageRecorder, type UsageRecorder } from './usage-recorder'

export interface UsageService {
  recorder: UsageRecorder
  gate: QuotaGate
  /** The dispatcher's observer for usage. */
  observe(record: DispatchRecord, req: IncomingMessage): void
  close(): void
}

export function createUsage(options: {
  env: UsageEnv
  stateDir: string
  tokens: TokenStore
  hot: HotMetrics
  logger: Logger
}): UsageService {
  const { env, tokens, hot, logger } = options
  const meter = createQuotaMeter()
  const requests = hot.counter('svc_token_requests_total', 'Inference requests per token id.', ['token'])
  const used = hot.counter(
    'svc_token_tokens_total',
    'Tokens used per token id and kind (prompt or completion), from the engines\u2019 usage.',
    ['token', 'kind'],
  )
  // Each token's three series, looked up once (this runs at the end of every request of a token).
  const perToken = new Map<string, ReturnType<typeof seriesOf>>()
  const seriesOf = (id: string) => ({
    requests: requests.at([id]),
    prompt: used.at([id, 'prompt']),
    completion: used.at([id, 'completion']),
  })
  const countersOf = (id: string) => perToken.get(id) ?? remember(perToken, id, seriesOf(id))
  const recorder = createUsageRecorder({
    ledger: openLedger(join(options.stateDir, 'usage.db')),
    meter,
    flushMs: env.flushMs,
    retention: env.retention,
    onTokenUse: (id, prompt, completion) => {
      const c = countersOf(id)
      c.requests.add()
      if (prompt) c.prompt.add(prompt)
      if (completion) c.completion.add(completion)
    },
    onProblem: (message) => logger.error('usage ledger problem', { error: message }),
  })
  const refusals = hot.counter(
    'svc_quota_refusals_total',
    'Requests refused with 429 quota.exceeded because a token was over its own quota, by token id and limit.',
    ['token', 'limit'],
  )
  const gate = createQuotaGate({
    meter: recorder.meter,
    limitsOf: (id) => tokens.lookup(id)?.limits,
    identityLimits: env.identityLimits,
    onTokenRefused: (id, limit) => refusals.add([id, limit]),
  })
  return {
    recorder,
    gate,
    observe: (record, req) => recorder.record(gate.subjectOf(req), record),
    close: () => recorder.close(),
  }
}
