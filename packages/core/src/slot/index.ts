export { type DemandState, type DemandStep, type DemandWaiter, planDemand } from './demand-plan'
export { roleSlot, routeRef } from './demand-route'
export { PrefixIndex } from './prefix-index'
export * from './replica-routing'
export { type Replica, ReplicaSet, type ReplicaStatus } from './replica-set'
export { type Lease, Slot, type SlotOptions, type SlotSnapshot } from './slot'
export { type DemandAcquireOptions, type LoadingNotice, SlotDemand } from './slot-demand'
export {
  type AdmissionRequest,
  type DefaultLoadResult,
  type LoadAdmission,
  type LoadOptions,
  SlotManager,
  type SlotManagerOptions,
} from './slot-manager'
export type { SlotAcquireOptions } from './slot-types'
export {
  DEFAULT_MAX_LOADED,
  planSpare,
  SPARE_UNLOAD_AFTER_MS,
  type SpareDecision,
  type SpareQuestion,
  spareName,
} from './spare-plan'
export { UpstreamBinding } from './upstream-binding'
export { type LeaseWaiter, waitForLeasable } from './wait'
export { type WarmUpOptions, warmUp } from './warm'
