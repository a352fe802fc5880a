import type { Logger } from './logger'

/**
 * A server's shutdown: on the first SIGTERM or SIGINT, logs `stopping` (with the signal), awaits
 * `stop`, logs `stopped` and exits 0. Signals that arrive while it stops are ignored.
 */
export function stopOnSignals(stop: () => Promise<void>, logger: Logger): void {
  let stopping = false
  const onSignal = async (signal: NodeJS.Signals) => {
    if (stopping) return
    stopping = true
    logger.info('stopping', { signal })
    await stop()
    logger.info('stopped')
    process.exit(0)
  }
  process.on('SIGTERM', () => void onSignal('SIGTERM'))
  process.on('SIGINT', () => void onSignal('SIGINT'))
}
