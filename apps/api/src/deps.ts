import type { Logger } from './logger'
import type { ApiMetrics } from './metrics'

/** What `/v1/models` lists: slot aliases first, then model refs. */
export interface ModelListing {
  aliases: string[]
  refs: { id: string; owned_by: string }[]
}

/** Feature flags reported by `GET /api/features` (what this build and config switch on). */
export interface Features {
  auth: boolean
  slots: boolean
  images: boolean
  containers: boolean
  dashboard: boolean
  [name: string]: boolean
}

/**
 * Everything the app needs, injected. `createApp` reads no env and opens no socket; `serve.ts`
 * builds these from the environment.
 */
export interface AppDeps {
  version: string
  startedAt: number
  clock?: () => number
  paths: { configDir: string; stateDir: string }
  auth: { enabled: boolean }
  features: Features
  metrics: ApiMetrics
  logger: Logger
  models: { list(): Promise<ModelListing> | ModelListing }
  /** Largest JSON body accepted on `/api/*` (bytes). Default 1 MiB. */
  bodyLimitBytes?: number
  /** Called before `/api/metrics` renders, to refresh gauges that are sampled, not pushed. */
  beforeMetrics?: () => Promise<void> | void
}
