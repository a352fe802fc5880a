import type { AppDeps } from './deps'
import type { ServeEnv } from './env'
import type { Logger } from './logger'
import type { ApiMetrics } from './metrics'

export interface WiringInput {
  env: ServeEnv
  logger: Logger
  metrics: ApiMetrics
}

export interface Wiring {
  deps: Pick<AppDeps, 'features' | 'models'>
  /** Starts background work once the server listens (e.g. loading enabled slots). */
  start(): Promise<void>
  /** Stops everything `start` began; called once on shutdown. */
  stop(): Promise<void>
}

/** Builds the services behind the app from the environment. */
export async function createWiring(input: WiringInput): Promise<Wiring> {
  void input
  return {
    deps: {
      features: {
        auth: input.env.authEnabled,
        slots: false,
        images: false,
        containers: false,
        dashboard: false,
      },
      models: { list: () => ({ aliases: ['primary', 'embed', 'stt', 'tts'], refs: [] }) },
    },
    async start() {},
    async stop() {},
  }
}
