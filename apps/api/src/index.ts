export { createLogger, type Logger, silentLogger } from '@svc/core/node'
export { type AppType, createApp, DEFAULT_BODY_LIMIT } from './app'
export type { AppDeps, Features } from './deps'
export { type ApiMetrics, createMetrics } from './metrics'
