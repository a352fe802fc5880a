export { type AppType, createApp, DEFAULT_BODY_LIMIT } from './app'
export type { AppDeps, Features } from './deps'
export { createLogger, type Logger, silentLogger } from './logger'
export { type ApiMetrics, createMetrics } from './metrics'
