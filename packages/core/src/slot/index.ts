export { type Lease, Slot, type SlotOptions, type SlotSnapshot } from './slot'
export {
  type DefaultLoadResult,
  type LoadOptions,
  SlotManager,
  type SlotManagerOptions,
} from './slot-manager'
export { type LeaseWaiter, waitForLeasable } from './wait'
