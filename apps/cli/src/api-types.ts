/**
 * What the API answers, inferred from its routes (types only, as the dashboard does: nothing of the
 * server is bundled into the CLI). One source of truth: a field the API renames breaks `tsc` here.
 */
import type { AppType } from '@svc/api'
import type { hc, InferResponseType } from 'hono/client'

type Api = ReturnType<typeof hc<AppType>>['api']

export type SlotView = InferResponseType<Api['slots']['$get'], 200>['slots'][number]
export type ModelView = InferResponseType<Api['models']['$get'], 200>['models'][number]
export type UsageBody = InferResponseType<Api['usage']['$get'], 200>
