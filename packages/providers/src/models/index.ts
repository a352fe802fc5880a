/**
 * `@svc/providers/models` (for svc's apps and tests): the curated catalogue, the model store
 * (`<state>/models/registry.json`, resolving what a user names, pulls), downloads and model URLs.
 */
export * from './catalogue'
export * from './download'
// The Hugging Face Hub: names (`hf.co/<owner>/<repo>:<quant>`), its config, picking a repo's files and
// resolving them (hub-*, pick-files, resolve-hub); the model library's search and a repo's quants.
export * from './hub/hub-config'
export * from './hub/hub-name'
export * from './hub/pick-files'
export * from './hub/repo-quants'
export * from './hub/resolve-hub'
export * from './hub/search'
export * from './model-facts'
export * from './model-files'
export * from './model-store'
export * from './model-url'
export * from './presets'
