/**
 * Several processes of one configuration, measured in turn. Identical svc processes on the shared
 * 2-core VM differed by up to 8 % in steady req/s for as long as they ran (two processes of the same
 * build and config, 24 alternating pairs of 1 s: 1.08×), so a configuration measured through a single
 * process carries that draw; goals that compare configurations use BENCH_PROCESSES of each.
 */
import { runWrk } from './load'
import type { Peer } from './peers'
import { roundOrder } from './stats'

export const PROCESSES = Number(process.env.BENCH_PROCESSES ?? 2)
/** Rounds of the paired goals at c=32 (the proxy section's pairs phase, the usage section). */
export const PAIRS = Number(process.env.BENCH_PAIRS ?? 24)
/**
 * Seconds of load at c=32 that warm a process of a paired goal before its rounds (the proxy section's
 * second processes, every process of the usage section). svc reached its steady req/s only after ~20 s
 * of load: 16 one-second pairs right after a 5 s warm-up read 0.84× the minimal proxy, the next 16
 * 1.00× and 0.98×; the minimal proxy and Caddy are steady at once. What 5 s did to the usage
 * section: docs/development.md (Performance).
 */
export const REPLICA_WARMUP = Number(process.env.BENCH_REPLICA_WARMUP ?? 20)
/**
 * Rounds run before the measured ones, in their order, whose figures are dropped (the usage section's;
 * `measureInRounds`'s `burnIn`). Warmed one after the other, the first group's processes have idled
 * for minutes when the rounds begin: in rounds 1–6 two groups of one configuration read 1.15–1.35×
 * apart, a bias of the warm-up order larger than the run-to-run spread (docs/development.md).
 */
export const BURN_IN = Number(process.env.BENCH_BURN_IN ?? 12)
/**
 * Seconds of unmeasured load at c=32 right before each measured run (0: none). Between its turns a
 * process idles while the others run, and an idle svc comes back slowly (V8's memory reducer flushes
 * bytecode that the next requests compile again); the goals are about the steady hop, so each run
 * starts from it. The measurements behind this: docs/development.md (Performance).
 */
export const SETTLE_SECONDS = Number(process.env.BENCH_SETTLE_SECONDS ?? 1)

/** `peer` brought back to its steady state after idling (SETTLE_SECONDS of load, not measured). */
export async function settle(peer: Peer): Promise<void> {
  if (SETTLE_SECONDS > 0) await runWrk(peer, 32, SETTLE_SECONDS)
}

/** `first` and `PROCESSES - 1` more started with `start`, each warmed up by `warm`. */
export async function withReplicas(
  first: Peer,
  start: () => Promise<Peer>,
  warm: (peer: Peer) => Promise<unknown>,
): Promise<Peer[]> {
  const group = [first]
  while (group.length < PROCESSES) {
    const peer = await start()
    await warm(peer)
    group.push(peer)
  }
  return group
}

/** The process of `group` that round `round` (from 1) measures. */
export function inTurn(group: readonly Peer[], round: number): Peer {
  return group[(round - 1) % group.length]!
}

/**
 * `rounds` rounds of `measure` over `groups` (each a configuration's processes), in `roundOrder`, each
 * group through its processes in turn, each run right after `before` (`settle` unless given), after
 * `burnIn` rounds run the same way whose results are dropped. The results by the group's name (its
 * first process's), in round order; `after` sees each measured one as it comes (for progress lines).
 */
export async function measureInRounds<R>(
  groups: readonly (readonly Peer[])[],
  rounds: number,
  measure: (peer: Peer) => Promise<R>,
  after?: (round: number, name: string, result: R) => void,
  before: (peer: Peer) => Promise<unknown> = settle,
  burnIn = 0,
): Promise<Map<string, R[]>> {
  const results = new Map<string, R[]>(groups.map((g) => [g[0]!.name, []]))
  for (let round = 1 - burnIn; round <= rounds; round++) {
    // Burn-in rounds follow the same order as the measured ones (the order repeats every two rounds).
    const place = round > 0 ? round : round + burnIn
    for (const group of roundOrder(groups, place)) {
      const name = group[0]!.name
      const peer = inTurn(group, place)
      await before(peer)
      const result = await measure(peer)
      if (round < 1) continue
      results.get(name)!.push(result)
      after?.(round, name, result)
    }
  }
  return results
}
