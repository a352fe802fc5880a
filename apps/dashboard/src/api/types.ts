/** Response types inferred from the API's routes (one source of truth: the server's code). */
import type { InferResponseType } from 'hono/client'
import type { api } from './client'

export type SlotView = InferResponseType<(typeof api.api.slots)['$get'], 200>['slots'][number]
export type ModelRow = InferResponseType<(typeof api.api.models)['$get'], 200>['models'][number]
export type TokenRow = InferResponseType<(typeof api.api.auth.tokens)['$get'], 200>['tokens'][number]
/** `GET /api/usage`: rows and totals of the ledger's counters. */
export type UsageAnswer = InferResponseType<(typeof api.api.usage)['$get'], 200>
export type HardwareReport = InferResponseType<(typeof api.api.hardware)['$get'], 200>
/** `GET /api/models/search`: one Hub repo found. */
export type HubHit = InferResponseType<(typeof api.api.models.search)['$get'], 200>['models'][number]
/** `GET /api/models/hub/:owner/:repo`: a repo's quants and header facts. */
export type HubRepoAnswer = InferResponseType<(typeof api.api.models.hub)[':owner'][':repo']['$get'], 200>
/** `GET /api/models/disk`. */
export type DiskUse = InferResponseType<(typeof api.api.models.disk)['$get'], 200>
