/**
 * `svc doctor`: whether each slot's backend can run on this machine. With the API up, its verdict
 * (`GET /api/slots` → `runnable`); with the API down, the very function the API judges by
 * (`slotRunnable`, @svc/providers) over the same picker report (detection, then
 * `buildHardwareReport`) and the slot files in the config dir. A slot that cannot run blocks svc only when it is enabled (the API loads it at start).
 */
import { join } from 'node:path'
import { readSlotConfigDir } from '@svc/core/node'
import {
  buildHardwareReport,
  createImageCache,
  createImageProvider,
  createLlmProvider,
  createNpuProvider,
  createSttProvider,
  describeProvider,
  type HardwareFacts,
  slotRunnable,
} from '@svc/providers'
import type { ImageManifest } from '@svc/providers/manifest'
import type { Finding } from './finding'

/** The fields of a slot `svc doctor` reads (`runnable` may be absent from an older API). */
export interface SlotVerdict {
  name: string
  provider: string
  backend: string | null
  runtime: string | null
  enabled: boolean
  runnable: { ok: boolean; reason: string | null; backends: { backend: string; ok: boolean }[] } | null
}

/** The finding for one slot, with the fix in the slot's file (or the dashboard's settings). */
export function slotFinding(slot: SlotVerdict, configDir: string): Finding {
  const where = [slot.backend, slot.runtime && `as a ${slot.runtime}`].filter(Boolean).join(' ')
  const label = `slot ${slot.name} (${slot.provider}${where ? `, ${where}` : ''}${slot.enabled ? '' : ', disabled'})`
  if (!slot.runnable) return { mark: 'ok', text: `${label}: not checked (the API did not say)` }
  if (slot.runnable.ok) return { mark: 'ok', text: `${label}: can run here` }
  const instead = slot.runnable.backends.find((b) => b.ok)?.backend
  const file = join(configDir, 'slots', `${slot.name}.toml`)
  const change = instead
    ? `set backend = "${instead}" in ${file} (or in the dashboard: the slot's settings)`
    : `run it elsewhere: runtime = "remote" with the url of a machine that can, in ${file}`
  return {
    mark: slot.enabled ? 'fail' : 'warn',
    text: `${label}: cannot run here: ${slot.runnable.reason ?? 'no reason given'}`,
    fix: slot.enabled ? change : `${change}; while it stays disabled nothing tries to load it`,
  }
}

/** The slots of `configDir` judged by the picker, as the API would judge them (the API is down). */
export async function slotsFromPicker(options: {
  configDir: string
  stateDir: string
  facts: HardwareFacts
  manifest: ImageManifest | undefined
}): Promise<SlotVerdict[]> {
  const providers = [
    createLlmProvider(),
    // Only its backends and images are read here: nothing is cached or translated.
    createImageProvider({
      cache: createImageCache({ dir: join(options.stateDir, 'images', 'cache') }),
      workflowsDir: '',
    }),
    createNpuProvider(),
    createSttProvider(),
  ]
  const report = buildHardwareReport(
    options.facts,
    options.manifest,
    providers.map((p) => describeProvider(p)),
  )
  const { configs } = await readSlotConfigDir(options.configDir)
  return configs.map((config) => {
    // As the API's slot system applies a file: the picker's backend where the file names none.
    const backend = config.backend ?? report.defaults[config.provider]
    return {
      name: config.name,
      provider: config.provider,
      backend: backend ?? null,
      runtime: config.runtime ?? null,
      enabled: config.enabled,
      // The API's own verdict (`slotRunnable`, @svc/providers), over the same picker report.
      runnable: slotRunnable(backend ? { ...config, backend } : config, { providers: report.providers }),
    }
  })
}
