/**
 * @svc/dispatcher: the `/v1/*` inference hop on Node's raw request and response. Slots and providers
 * come in by injection; it imports only core.
 */
// biome-ignore-all assist/source/organizeImports: grouped by topic (a table of contents), not sorted

// The dispatcher, and the paths it answers.
export * from './dispatcher'
export * from './call'
export * from './endpoints'

// Reading a request: bodies, the schemas they must match, `model` in a multipart upload, images.
export * from './body'
export * from './schemas'
export * from './surface-schemas'
export * from './multipart-model'
export * from './vision'

// Where it goes: slots and hosted upstreams.
export * from './resolve'
export * from './upstreams'
export * from './model-access'

// What comes back: upstream errors normalised, svc's errors written, token usage (and other units) read.
export * from './normalise'
export * from './respond'
export * from './response-headers'
export * from './usage'
export * from './units'
