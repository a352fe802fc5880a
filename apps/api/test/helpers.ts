import { mkdir, mkdtemp, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { silentLogger } from '@svc/core/node'
import { createApp } from '../src/app'
import type { AppDeps } from '../src/deps'
import { createMetrics } from '../src/metrics'
import { createModelPulls } from '../src/slots/model-pulls'
import { createSlotSystem, type SlotSystemOptions } from '../src/slots/slot-system'

/** An app over temp directories with every dependency at a sensible test default. */
export async function testApp(
  overrides: Partial<AppDeps> = {},
  slotOptions: Partial<SlotSystemOptions> = {},
) {
  const root = await mkdtemp(join(tmpdir(), 'svc-app-'))
  const paths = { configDir: join(root, 'config'), stateDir: join(root, 'state') }
  await mkdir(join(paths.configDir, 'slots'), { recursive: true })
  await writeFile(join(paths.configDir, 'slots', 'mine.toml'), 'provider = "llm"\n')
  const slots = await createSlotSystem({ ...paths, env: process.env, ...slotOptions })
  const deps: AppDeps = {
    version: '9.9.9',
    startedAt: Date.now(),
    paths,
    slots,
    auth: { enabled: false },
    features: { auth: false, slots: true, images: false, containers: false, dashboard: false },
    metrics: createMetrics({ processMetrics: false }),
    logger: silentLogger,
    pulls: createModelPulls({ store: slots.store, bus: slots.bus }),
    ...overrides,
  }
  return { app: createApp(deps), deps }
}
