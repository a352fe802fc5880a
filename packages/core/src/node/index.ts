/**
 * `@svc/core/node`: the few file-system helpers every package that writes state shares (atomic
 * writes, a cross-process lock, the slot config directory). The main entry of @svc/core stays free of
 * I/O; this entry is Node-only by design.
 */
export * from './atomic-write'
export * from './file-lock'
export * from './paths'
export * from './slot-config-dir'
