/**
 * The speech detector (Silero VAD on onnxruntime-web, `@svc/providers`' `warmVad`) costs 1–9 s to
 * load the first time in a process. Streamed transcription (`stream=true`) and the Realtime API's
 * server VAD need it, so it is loaded once, in the background, when a slot served by the `stt`
 * provider becomes ready: a user's first streamed transcription does not pay for it. An svc without an
 * stt slot never loads it (until the detector has loaded, the listener compares one field per slot
 * transition, which is one per request; then it is removed).
 */
import type { EventBus, SvcEvents } from '@svc/core'
import type { Logger } from '@svc/core/node'
import { warmVad } from '@svc/providers'

export interface VadWarmUpOptions {
  bus: EventBus<SvcEvents>
  /** The provider kind of a slot (`stt`, `llm`, …); undefined for a slot it does not know. */
  kindOf(slot: string): string | undefined
  logger: Logger
  /** What loads the detector (tests); default `warmVad`. */
  warm?: () => Promise<void>
}

/**
 * Warms the detector on the first `ready` of an stt slot. Logs `speech detector loaded` (info, with
 * the milliseconds it took) or `speech detector did not load` (warn; the next ready of an stt slot,
 * or the first streamed request, tries again). Never throws. Answers the listener's removal.
 */
export function warmVadOnSttReady(options: VadWarmUpOptions): () => void {
  const { logger, warm = warmVad } = options
  let loading = false
  // serving ⇄ idle are transitions too, one per request: the listener goes once the detector is loaded.
  const off = options.bus.on('slot.transition', (e) => {
    if (e.to !== 'ready' || loading || options.kindOf(e.slot) !== 'stt') return
    loading = true
    const started = performance.now()
    warm().then(
      () => {
        off()
        logger.info('speech detector loaded', { slot: e.slot, ms: Math.round(performance.now() - started) })
      },
      (error: unknown) => {
        loading = false
        logger.warn('speech detector did not load', { slot: e.slot, error })
      },
    )
  })
  return off
}
