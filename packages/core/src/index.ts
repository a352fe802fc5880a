/**
 * `@svc/core`: the words every package shares, runtime-neutral (no framework, no I/O, no provider
 * concept). Node-only helpers are in `@svc/core/node`.
 */
// biome-ignore-all assist/source/organizeImports: grouped by topic (a table of contents), not sorted

// Slots: the lifecycle table, the slot owner and its manager, config, status, the driver port.
export * from './slot-states'
export * from './slot'
export * from './slot-config'
export * from './slot-config-demand'
export * from './slot-config-routing'
export * from './slot-status'
export * from './slot-driver'
export * from './memory/budget-plan'

// Models, and the request side of the provider contract (what the dispatcher sends a provider).
export * from './models'
export * from './toml-text'
export * from './provider-route'

// Errors: the one family, its codes and the one renderer.
export * from './errors'
export * from './error-shapes'
export * from './error-body'

// The HTTP edge the API and the chat server share (plain values; Hono stays in apps).
export * from './edge-errors'
export * from './multipart-form'

// Events: the bus, what goes over it, and what `GET /api/events` sends.
export * from './event-bus'
export * from './events'
export * from './api-events'
export * from './slot-metrics'
export * from './model-pull-event'
export * from './clock'

// Per-caller values kept for the hot path, bounded.
export * from './bounded-map'

// JSON at the edges: request bodies, their nesting, exact number literals.
export * from './json-body'
export * from './json-depth'
export * from './json-literals'
export * from './json-numbers'
export * from './json-scan'

// Server-Sent Events, read from a web stream (the chat server, the CLI, the browser).
export * from './sse-reader'
