import type { Logger } from '@svc/core/node'
import type { Picker } from '@svc/providers'
import type { HubAccess } from '@svc/providers/models'
import type { ActivityLog } from './activity/activity-log'
import type { DashboardFiles } from './dashboard/dashboard-files'
import type { ApiMetrics } from './metrics'
import type { AuthDeps } from './middleware/auth'
import type { ModelPulls } from './slots/model-pulls'
import type { PresetsState } from './slots/presets-watch'
import type { SlotActivity } from './slots/slot-activity'
import type { SlotSystem } from './slots/slot-system'
import type { UsageRecorder } from './usage/usage-recorder'

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
  /** Authentication: mode, tokens, trusted proxies (see middleware/auth.ts). */
  auth: AuthDeps
  features: Features
  metrics: ApiMetrics
  logger: Logger
  /** Model refs served by hosted upstreams (`openai/gpt-4o-mini`), listed after svc's own. */
  upstreamRefs?: () => { id: string; owned_by: string }[]
  /** Largest JSON body accepted on `/api/*` (bytes). Default 1 MiB. */
  bodyLimitBytes?: number
  /** Live streams (`/api/events` and `logs?follow=1` together) served at once. Default 64. */
  maxStreams?: number
  /** Called before `/api/metrics` renders, to refresh gauges that are sampled, not pushed. */
  beforeMetrics?: () => Promise<void> | void
  /** Prometheus text appended to `/api/metrics` (upstreams' own metrics, labelled by slot). */
  upstreamMetrics?: () => Promise<string>
  /** The slots, their models and events. */
  slots: SlotSystem
  /** The picker behind `GET /api/hardware` (hardware, images, backends per provider). */
  hardware?: Pick<Picker, 'report'>
  /** The dashboard's build, served at `/` (absent: no build, `features.dashboard` is false). */
  dashboard?: DashboardFiles
  /** Live per-slot figures (`slot.metrics`, `metrics` in `/api/slots`). */
  activity?: SlotActivity
  /** Requests in flight and the last few hundred (`/api/activity`, `activity.*` events; absent: 404). */
  activityLog?: ActivityLog
  /** Pulls started from the Models page (`POST /api/models/:id/pull`). */
  pulls?: ModelPulls
  /** The Hugging Face Hub (`HF_ENDPOINT`, `HF_TOKEN`) the model library searches (absent: no Hub routes). */
  hub?: HubAccess
  /** The usage ledger behind `GET /api/usage` (absent: usage is off, the route answers 404). */
  usage?: UsageRecorder
  /** Presets per model (`<config>/presets.toml`): `GET /api/presets` and the model lists (absent: none). */
  presets?: PresetsState
}
