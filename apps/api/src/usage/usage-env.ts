/** The usage ledger's and the quotas' settings, from the environment (docs/configuration.md). */
import { parseQuotaSpec, type QuotaLimits } from '@svc/auth'
import { envFlag } from '@svc/core/node'
import { fallbackOf, type ServeVariable } from '../env-variables'
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

/** Parses the usage variables; `read` gives the raw value of a declared variable (env.ts). */
export function readUsageEnv(read: (name: ServeVariable) => string | undefined): UsageEnv {
  const quota = parseQuotaSpec(read('SVC_IDENTITY_QUOTA'))
  if (!quota.ok) throw new Error(`SVC_IDENTITY_QUOTA: ${quota.error}`)
  const number = (name: ServeVariable, min: number) => atLeast(name, read(name), min)
  return {
    enabled: envFlag('SVC_USAGE_ENABLED', read('SVC_USAGE_ENABLED') || fallbackOf('SVC_USAGE_ENABLED'), true),
    flushMs: number('SVC_USAGE_FLUSH_SECONDS', 0.05) * 1000,
    retention: {
      hourlyDays: number('SVC_USAGE_HOURLY_DAYS', 1),
      dailyDays: number('SVC_USAGE_DAILY_DAYS', 0),
    },
    identityLimits: quota.limits,
  }
}

function atLeast(name: ServeVariable, value: string | undefined, min: number): number {
  if (value === undefined || value.trim() === '') return Number(fallbackOf(name))
  const n = Number(value)
  if (!Number.isFinite(n) || n < min) throw new Error(`${name} must be a number >= ${min}, got "${value}"`)
  return n
}
