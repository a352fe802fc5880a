export { type Lease, Slot, type SlotOptions, type SlotSnapshot } from './slot'
export {
  type AdmissionRequest,
  type DefaultLoadResult,
  type LoadAdmission,
  type LoadOptions,
  SlotManager,
  type SlotManagerOptions,
} from './slot-manager'
export { type LeaseWaiter, waitForLeasable } from './wait'
