import { mkdtemp } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createApp } from '../src/app'
import type { AppDeps } from '../src/deps'
import { silentLogger } from '../src/logger'
import { createMetrics } from '../src/metrics'

/** An app over temp directories with every dependency at a sensible test default. */
export async function testApp(overrides: Partial<AppDeps> = {}) {
  const root = await mkdtemp(join(tmpdir(), 'svc-app-'))
  const deps: AppDeps = {
    version: '9.9.9',
    startedAt: Date.now(),
    paths: { configDir: join(root, 'config'), stateDir: join(root, 'state') },
    auth: { enabled: false },
    features: { auth: false, slots: true, images: false, containers: false, dashboard: false },
    metrics: createMetrics({ processMetrics: false }),
    logger: silentLogger,
    models: {
      list: () => ({
        aliases: ['primary', 'embed', 'stt', 'tts', 'mine'],
        refs: [{ id: 'qwen3-0.6b-q8_0', owned_by: 'svc' }],
      }),
    },
    ...overrides,
  }
  return { app: createApp(deps), deps }
}
