/** Per-model presets (`<config>/presets.toml`): parsing, the compiled table, request fields. */
export * from './parse-presets'
export * from './preset-schema'
export * from './preset-table'
export * from './request-fields'
