/**
 * Where and on what a slot runs: its backend and runtime when the config names none (the picker's
 * choice for this machine), and the checks a load must pass (the backend can be honoured here, the
 * model fits in memory). Without a picker (tests that present no machine) everything is `cpu` on the
 * host (`process`), which any Linux box can honour.
 */
import type { Backend, ModelEntry, RuntimeKind, SlotConfig } from '@svc/core'
import type { HardwareReport, Picker } from '@svc/providers'

export interface Placement {
  backend: Backend
  runtime: RuntimeKind
}

export interface Placer {
  /** The effective backend and runtime of a slot (config first, then the picker's defaults). */
  place(config: SlotConfig): Placement
  /** Throws 409 `backend.unavailable` with the reason when the slot cannot load `model` here. */
  check(config: SlotConfig, model: ModelEntry): Promise<void>
  /** Re-reads the hardware (e.g. after `?refresh=1`) so new defaults apply at the next configure. */
  refresh(): Promise<void>
}

export async function createPlacer(picker: Picker | undefined): Promise<Placer> {
  let report: HardwareReport | undefined = picker ? await picker.report() : undefined
  const place = (config: SlotConfig): Placement => {
    const backend = config.backend ?? report?.defaults[config.provider] ?? 'cpu'
    const verdict = report?.providers[config.provider]?.[backend]
    const runtime = config.runtime ?? (verdict?.ok ? verdict.runtimes[0] : undefined) ?? 'process'
    return { backend, runtime }
  }
  return {
    place,
    async check(config, model) {
      if (!picker || !report?.providers[config.provider]) return // a third-party kind the picker does not know
      const { backend, runtime } = place(config)
      await picker.assertBackend(config.provider, backend, runtime)
      // A remote or swarm slot runs on other machines: this one's memory says nothing about it.
      if (runtime !== 'remote' && runtime !== 'swarm') await picker.assertModelFits(model)
    },
    async refresh() {
      if (picker) report = await picker.report({ refresh: true })
    },
  }
}
