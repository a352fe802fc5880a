/**
 * `@svc/providers/models` (for svc's apps and tests): the curated catalogue, the model store
 * (`<state>/models/registry.json`, resolving what a user names, pulls), downloads and model URLs.
 */
export * from './catalogue'
export * from './download'
// Hugging Face names (`hf.co/<owner>/<repo>:<quant>`): the Hub's config, parsing, picking a repo's files, resolving.
export * from './hub/hub-config'
export * from './hub/hub-name'
export * from './hub/pick-files'
export * from './hub/resolve-hub'
// The model library: Hub search and a repo's quants (`hub/search.ts`, `hub/repo-quants.ts`).
export * from './hub/repo-quants'
export * from './hub/search'
export * from './model-facts'
export * from './model-files'
export * from './model-store'
export * from './model-url'
export * from './presets'
