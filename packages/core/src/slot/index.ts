export { type Lease, Slot, type SlotOptions, type SlotSnapshot } from './slot'
export { type DefaultLoadResult, SlotManager, type SlotManagerOptions } from './slot-manager'
export { type LeaseWaiter, waitForLeasable } from './wait'
