/** The usage ledger's and the quotas' settings, from the environment (docs/configuration.md). */
import { parseQuotaSpec, type QuotaLimits } from '@svc/auth'
import { envFlag } from '@svc/core/node'
import type { Retention } from './usage-recorder'

export interface UsageEnv {
  /** `SVC_USAGE_ENABLED` (default on): the ledger, the quotas and the per-token metrics. */
  enabled: boolean
  /** `SVC_USAGE_FLUSH_SECONDS` (default 2): how often counts are written; the most a crash loses. */
  flushMs: number
  /** `SVC_USAGE_HOURLY_DAYS` (default 90) and `SVC_USAGE_DAILY_DAYS` (default 0: keep). */
  retention: Retention
  /** `SVC_IDENTITY_QUOTA` (`rpm=30,tpm=20000,tpd=200000`): each forwarded identity's quota. */
  identityLimits: QuotaLimits
}

type Env = Record<string, string | undefined>

export function readUsageEnv(env: Env): UsageEnv {
  const quota = parseQuotaSpec(env.SVC_IDENTITY_QUOTA)
  if (!quota.ok) throw new Error(`SVC_IDENTITY_QUOTA: ${quota.error}`)
  return {
    enabled: envFlag('SVC_USAGE_ENABLED', env.SVC_USAGE_ENABLED, true),
    flushMs: number('SVC_USAGE_FLUSH_SECONDS', env.SVC_USAGE_FLUSH_SECONDS, 2, 0.05) * 1000,
    retention: {
      hourlyDays: number('SVC_USAGE_HOURLY_DAYS', env.SVC_USAGE_HOURLY_DAYS, 90, 1),
      dailyDays: number('SVC_USAGE_DAILY_DAYS', env.SVC_USAGE_DAILY_DAYS, 0, 0),
    },
    identityLimits: quota.limits,
  }
}

function number(name: string, value: string | undefined, fallback: number, min: number): number {
  if (value === undefined || value.trim() === '') return fallback
  const n = Number(value)
  if (!Number.isFinite(n) || n < min) throw new Error(`${name} must be a number >= ${min}, got "${value}"`)
  return n
}
