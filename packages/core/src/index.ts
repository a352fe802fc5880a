export * from './errors'
export * from './event-bus'
export * from './slot-config'
export * from './slot-states'
