/**
 * `@svc/providers/memory` (for svc's apps and tests): the memory devices of this machine and their
 * budgets, what a load is expected to take, and the GGUF facts that estimate reads.
 */
export * from './devices'
export * from './estimate'
export * from './gguf-metadata'
