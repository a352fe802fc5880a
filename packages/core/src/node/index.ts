/**
 * `@svc/core/node`: the few Node helpers every package and app shares (atomic writes, a
 * cross-process lock, environment values, config and state paths, the slot config directory, the servers' logger,
 * shutdown and svc's version). The main entry of @svc/core stays free of I/O; this entry is Node-only by design.
 */
export * from './atomic-write'
export * from './env-table'
export * from './env-values'
export * from './file-lock'
export * from './http-start'
export * from './lazy-listener'
export * from './logger'
export * from './paths'
export * from './server-guard'
export * from './slot-config-dir'
export * from './stop-on-signals'
export * from './version'
