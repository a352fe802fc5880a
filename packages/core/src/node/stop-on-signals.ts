import type { Logger } from './logger'

/**
 * A server's shutdown, installed before the server listens (a SIGTERM sent as soon as "listening"
 * shows would otherwise meet Node's default action: an instant exit, nothing drained). On the first
 * SIGTERM or SIGINT, logs `stopping` (with the signal), waits for `server` to have started, awaits its
 * `stop`, logs `stopped` and exits 0; a server that failed to start has nothing to stop. Signals that
 * arrive while it stops are ignored.
 */
export function stopOnSignals(server: Promise<{ stop(): Promise<void> }>, logger: Logger): void {
  let stopping = false
  const onSignal = async (signal: NodeJS.Signals) => {
    if (stopping) return
    stopping = true
    logger.info('stopping', { signal })
    await (await server.catch(() => undefined))?.stop()
    logger.info('stopped')
    process.exit(0)
  }
  process.on('SIGTERM', () => void onSignal('SIGTERM'))
  process.on('SIGINT', () => void onSignal('SIGINT'))
}
