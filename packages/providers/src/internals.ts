/**
 * `@svc/providers/internals` (for svc's apps and tests only; no stability promised): runtime details
 * the app wires or a test needs.
 */
export * from './runtimes/container-instance'
export * from './runtimes/free-port'
export * from './runtimes/leftovers'
export * from './runtimes/live-runs'
export * from './runtimes/remote-models'
